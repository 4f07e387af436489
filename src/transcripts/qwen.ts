// Qwen Code's transcript reader (0.24.4 seen, test/fixtures/transcripts/qwen/README.md).
//
// Where: `<runtime>/projects/<project root, every non-alphanumeric character as '-'>/chats/
// <session id>.jsonl`. `<runtime>` is $QWEN_RUNTIME_DIR when set, else $QWEN_HOME, else
// ~/.qwen (the pinned Storage class: getRuntimeBaseDir / getGlobalQwenDir; a run with
// QWEN_HOME set was seen writing there; `~` expanded as it does). A runtime folder named only in settings.json
// (`advanced.runtimeOutputDir`) is not followed: a hook payload names the file anyway.
//
// Format: JSON lines, appended; every line has `uuid`, `parentUuid`, `sessionId`,
// `timestamp`, `type`, `cwd`, `version` (the agent's version, not a format version: no file
// is refused for it). The conversation is in Gemini's Content shape (`message.parts`).
//
// Mapping (item_id = the line's `uuid`, `<uuid>:<n>` for the n-th further item of one line):
// - `user`: text parts → user message.
// - `assistant`: text parts → assistant message (the line's `model`; usage from
//   `usageMetadata`: promptTokenCount, candidatesTokenCount, cachedContentTokenCount, on the
//   line's first item); `thought: true` parts with text → reasoning (the thought text Qwen
//   shows; a `thoughtSignature` is never kept); functionCall → tool call (name, id, args;
//   files = file_path of read_file, write_file, edit, notebook_path of notebook_edit; none for
//   run_shell_command).
// - `tool_result`: functionResponse → tool result (response.output, else error, else the
//   response as JSON; readPath = the read_file call's file_path).
// - `system`: `chat_compression` → compaction (the summary, the first text of
//   systemPayload.compressedHistory, as the 0.24.4 source builds it: not yet seen written,
//   the stand-in's short history is "not beneficial" to compress); every other subtype
//   (ui_telemetry, attribution_snapshot, custom_title, ...) is metadata: no item.
import type { ItemUsage, RawItem } from '../core/transcript.ts';
import { type JsonlReader, type ParseState, type SessionFile, SkipLine } from './types.ts';
import { dirEntries, isDir, isFile, joinPath, recalledCall, rememberCall, str, textOfBlocks } from './reader-util.ts';

const FILE_TOOLS: Record<string, string> = { read_file: 'file_path', write_file: 'file_path', edit: 'file_path', notebook_edit: 'notebook_path' };

function resolveDir(dir: string, home: string): string {
  if (dir === '~') return home;
  if (dir.startsWith('~/') || dir.startsWith('~\\')) return joinPath(home, dir.slice(2));
  return dir;
}

/** Qwen Code's runtime folder (sessions live under it). */
function runtimeDir(env: NodeJS.ProcessEnv, home: string): string {
  const runtime = env.QWEN_RUNTIME_DIR;
  if (runtime) return resolveDir(runtime, home);
  const qwenHome = env.QWEN_HOME;
  if (qwenHome) return resolveDir(qwenHome, home);
  return joinPath(home, '.qwen');
}

export const qwenProjectDir = (cwd: string): string => cwd.replace(/[^a-zA-Z0-9]/g, '-');

function usageOf(u: unknown): ItemUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const o = u as Record<string, unknown>;
  const n = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  return { input: n(o.promptTokenCount), output: n(o.candidatesTokenCount), cache_read: n(o.cachedContentTokenCount) };
}

function partsOf(o: Record<string, unknown>): Record<string, unknown>[] {
  const msg = o.message as Record<string, unknown> | undefined;
  if (!msg || !Array.isArray(msg.parts)) throw new SkipLine(`${String(o.type)} line without message parts`);
  return msg.parts.filter((p): p is Record<string, unknown> => !!p && typeof p === 'object');
}

function resultText(response: unknown): string {
  if (typeof response === 'string') return response;
  if (!response || typeof response !== 'object') return '';
  const r = response as Record<string, unknown>;
  if (typeof r.output === 'string') return r.output;
  if (typeof r.error === 'string') return r.error;
  if (r.error && typeof r.error === 'object' && typeof (r.error as { message?: unknown }).message === 'string') return (r.error as { message: string }).message;
  try {
    return JSON.stringify(r);
  } catch {
    return '';
  }
}

function numbered(items: RawItem[], id: string): RawItem[] {
  return items.map((item, i) => ({ ...item, item_id: i === 0 ? id : `${id}:${i}` }));
}

function lineItems(o: Record<string, unknown>, type: string, id: string, at: string | null, state: ParseState): RawItem[] {
  if (type === 'user') {
    const text = partsOf(o)
      .filter((p) => typeof p.text === 'string' && p.thought !== true)
      .map((p) => p.text as string)
      .join('\n');
    if (text === '') return [];
    state.meta.firstPrompt ??= text;
    return [{ item_id: id, at, role: 'user', kind: 'message', text }];
  }
  if (type === 'assistant') {
    const model = str(o.model);
    if (model) state.meta.model = model;
    const out: RawItem[] = [];
    for (const p of partsOf(o)) {
      if (typeof p.text === 'string') {
        if (p.thought === true) {
          if (p.text.trim() !== '') out.push({ item_id: '', at, role: 'assistant', kind: 'reasoning', text: p.text });
        } else out.push({ item_id: '', at, role: 'assistant', kind: 'message', text: p.text });
      } else if (p.functionCall && typeof p.functionCall === 'object') {
        const call = p.functionCall as Record<string, unknown>;
        const name = str(call.name) ?? '';
        const callId = str(call.id) ?? '';
        const key = FILE_TOOLS[name];
        const path = key && call.args && typeof call.args === 'object' ? str((call.args as Record<string, unknown>)[key]) : undefined;
        rememberCall(state, callId, { name, ...(path ? { path } : {}) });
        const item: RawItem = { item_id: '', at, role: 'assistant', kind: 'tool_call', text: '', tool: { name, call_id: callId, input: call.args } };
        if (path) item.files = [path];
        out.push(item);
      }
    }
    const usage = usageOf(o.usageMetadata);
    return numbered(out, id).map((item, i) => ({ ...item, ...(model ? { model } : {}), ...(i === 0 && usage ? { usage } : {}) }));
  }
  if (type === 'tool_result') {
    const out: RawItem[] = [];
    for (const p of partsOf(o)) {
      if (!p.functionResponse || typeof p.functionResponse !== 'object') continue;
      const r = p.functionResponse as Record<string, unknown>;
      const callId = str(r.id) ?? '';
      const call = recalledCall(state, callId);
      const name = str(r.name) ?? call?.name ?? '';
      const item: RawItem = { item_id: '', at, role: 'tool', kind: 'tool_result', text: resultText(r.response), tool: { name, call_id: callId } };
      if (name === 'read_file' && call?.path) item.readPath = call.path;
      out.push(item);
    }
    return numbered(out, id);
  }
  // system
  if (o.subtype === 'chat_compression') {
    const payload = o.systemPayload as Record<string, unknown> | undefined;
    const history = Array.isArray(payload?.compressedHistory) ? payload.compressedHistory : [];
    const first = history[0] as { parts?: unknown } | undefined;
    const text = textOfBlocks(first?.parts);
    return text ? [{ item_id: id, at, role: 'system', kind: 'compaction', text }] : [];
  }
  return [];
}

export const qwenReader: JsonlReader = {
  agent: 'qwen',
  format: 'jsonl',
  roots: (re) => [joinPath(runtimeDir(re.env, re.home), 'projects')],
  *list(re) {
    const root = joinPath(runtimeDir(re.env, re.home), 'projects');
    for (const project of dirEntries(root)) {
      const chats = joinPath(root, project, 'chats');
      if (!isDir(chats)) continue;
      for (const name of dirEntries(chats)) {
        if (!name.endsWith('.jsonl') || !isFile(joinPath(chats, name))) continue;
        const file: SessionFile = { path: joinPath(chats, name), agentSession: name.slice(0, -'.jsonl'.length) };
        yield file;
      }
    }
  },
  locate(re, agentSession, cwd) {
    if (!/^[A-Za-z0-9._-]+$/.test(agentSession)) return null;
    const root = joinPath(runtimeDir(re.env, re.home), 'projects');
    const name = `${agentSession}.jsonl`;
    if (cwd) {
      const direct = joinPath(root, qwenProjectDir(cwd), 'chats', name);
      if (isFile(direct)) return direct;
    }
    for (const project of dirEntries(root)) {
      const p = joinPath(root, project, 'chats', name);
      if (isFile(p)) return p;
    }
    return null;
  },
  parseLine(value, _line, state) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SkipLine('not a JSON object');
    const o = value as Record<string, unknown>;
    const type = str(o.type);
    if (type !== 'user' && type !== 'assistant' && type !== 'tool_result' && type !== 'system') throw new SkipLine(type ? `unknown line type ${type.slice(0, 64)}` : 'line without type');
    const id = str(o.uuid);
    if (!id) throw new SkipLine(`${type} line without uuid`);
    const m = state.meta;
    m.agentSession ??= str(o.sessionId);
    m.cwd ??= str(o.cwd);
    if (str(o.version)) m.version = str(o.version);
    m.startedAt ??= str(o.timestamp);
    return lineItems(o, type, id, str(o.timestamp) ?? null, state);
  },
};
