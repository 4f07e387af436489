// Gemini CLI's transcript reader (0.61.0 seen, test/fixtures/transcripts/gemini/README.md).
//
// Where: `<home>/.gemini/tmp/<project name>/chats/session-<start, minutes>-<first 8 of the
// session id>.jsonl`, `<home>` being $GEMINI_CLI_HOME when set (the pinned build's homedir();
// a run with it set was seen writing there), else the user's HOME; the project name is the one ~/.gemini/projects.json gives the
// project root (its folder's base name when free). A `--resume` run appends to the original
// file, and also starts a new stub file (header and context only) that its SessionStart
// payload names; its later payloads (AfterAgent, SessionEnd) name the original.
//
// Format (not the whole-document JSON of older versions): JSON lines, appended. A header
// `{sessionId, projectHash, startTime, lastUpdated, kind}`; `{"$set": {...}}` metadata updates,
// where `$set.messages` lists the whole conversation again (on resume); `{"$rewindTo": ID}`
// (the agent dropped the messages from ID on: baton's record keeps them); message records
// `{id, timestamp, type, content, ...}`, a message written again under the same id when it
// changes (a model message gains its `toolCalls` once they ran). No format version.
//
// Mapping (the same message id always gives the same item ids, so a record written again, or
// listed again by `$set.messages`, is the same item: idempotence drops it, a change supersedes).
// A resume started in the same minute as the session writes its fresh header and re-list into
// the original file (no stub), the re-listed model messages rebuilt from the API history:
// a new timestamp, no `tokens`, no `model`. So a message this file already holds as its own
// record is left out of a later `$set.messages` (the ids of the last RECORDED_IDS such records
// are kept in `state.own.recorded`): a re-list never supersedes the full record with less.
// Seen: test/fixtures/transcripts/gemini/gemini-0.61.0-resume-same-minute-*.jsonl.
// - `user`, text parts → user message (id = message id), the hook context Gemini wraps into
//   it (`<hook_context>`) stripped; `<session_context>` (the CLI's own context) → none (its
//   first workspace directory is the session's cwd); functionResponse parts → none: a
//   resume re-lists them under new ids (`<id>_response`), the call's own `result` is the
//   stable record.
// - `gemini`: its text → assistant message (model; usage from `tokens`: input, output,
//   cached → cache_read; on the record's first item); `thoughts` (the subject and description
//   Gemini shows) → reasoning (`<id>:thought:<n>`); `toolCalls` → tool calls (`<id>:<call id>`;
//   name, args; files = file_path of read_file, write_file, replace; none for
//   run_shell_command) and their `result` → tool results (`<id>:<call id>:result`; readPath =
//   read_file's file_path).
// - `info`, `warning`, `error` → system message.
import type { ItemUsage, RawItem } from '../core/transcript.ts';
import { stripHookContext } from '../providers/gemini-context.ts';
import { dirEntries, isDir, isFile, joinPath, str, textOfBlocks } from './reader-util.ts';
import { type JsonlReader, type ParseState, type SessionFile, SkipLine } from './types.ts';

const FILE_TOOLS = new Set(['read_file', 'write_file', 'replace']);

function tmpRoot(env: NodeJS.ProcessEnv, home: string): string {
  const h = env.GEMINI_CLI_HOME;
  return joinPath(h && h !== '' ? h : home, '.gemini', 'tmp');
}

function usageOf(t: unknown): ItemUsage | undefined {
  if (!t || typeof t !== 'object') return undefined;
  const o = t as Record<string, unknown>;
  const n = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  return { input: n(o.input), output: n(o.output), cache_read: n(o.cached) };
}

/** How many ids of messages seen as their own records a file's parse state keeps (bounded cursor state). */
const RECORDED_IDS = 1024;

function recorded(state: ParseState): string[] {
  const r = state.own.recorded;
  if (Array.isArray(r)) return r as string[];
  const fresh: string[] = [];
  state.own.recorded = fresh;
  return fresh;
}

function remember(id: string, state: ParseState): void {
  const r = recorded(state);
  if (r.includes(id)) return;
  r.push(id);
  if (r.length > RECORDED_IDS) r.splice(0, r.length - RECORDED_IDS);
}

const WORKSPACE_RE = /\*\*Workspace Directories:\*\*\n\s*- ([^\n]+)/;

function messageItems(m: Record<string, unknown>, state: ParseState): RawItem[] {
  const id = str(m.id);
  const type = str(m.type);
  if (!id || !type) throw new SkipLine('message without id or type');
  const at = str(m.timestamp) ?? null;
  const content = m.content;
  const parts = Array.isArray(content) ? content.filter((p): p is Record<string, unknown> => !!p && typeof p === 'object') : [];
  const text = typeof content === 'string' ? content : textOfBlocks(parts.filter((p) => typeof p.text === 'string' && p.thought !== true));
  if (type === 'user') {
    const out: RawItem[] = [];
    if (text.trimStart().startsWith('<session_context>')) {
      state.meta.cwd ??= WORKSPACE_RE.exec(text)?.[1]?.trim();
      return [];
    }
    const typed = stripHookContext(text);
    if (typed.trim() !== '') {
      state.meta.firstPrompt ??= typed;
      out.push({ item_id: id, at, role: 'user', kind: 'message', text: typed });
    }
    return out;
  }
  if (type === 'gemini') {
    const model = str(m.model);
    if (model) state.meta.model = model;
    const out: RawItem[] = [];
    if (text.trim() !== '') out.push({ item_id: id, at, role: 'assistant', kind: 'message', text });
    const thoughts = Array.isArray(m.thoughts) ? m.thoughts : [];
    thoughts.forEach((t, i) => {
      if (!t || typeof t !== 'object') return;
      const o = t as Record<string, unknown>;
      const s = [str(o.subject), str(o.description)].filter((x) => x && x.trim() !== '').join(': ');
      if (s) out.push({ item_id: `${id}:thought:${i}`, at: str(o.timestamp) ?? at, role: 'assistant', kind: 'reasoning', text: s });
    });
    for (const c of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
      if (!c || typeof c !== 'object') continue;
      const call = c as Record<string, unknown>;
      const name = str(call.name) ?? '';
      const callId = str(call.id) ?? '';
      const args = call.args as Record<string, unknown> | undefined;
      const path = FILE_TOOLS.has(name) && args && typeof args === 'object' ? str(args.file_path) : undefined;
      const item: RawItem = { item_id: `${id}:${callId}`, at, role: 'assistant', kind: 'tool_call', text: '', tool: { name, call_id: callId, input: call.args } };
      if (path) item.files = [path];
      out.push(item);
      const result = resultOf(call.result);
      if (result !== null) {
        const r: RawItem = { item_id: `${id}:${callId}:result`, at: str(call.timestamp) ?? at, role: 'tool', kind: 'tool_result', text: result, tool: { name, call_id: callId } };
        if (name === 'read_file' && path) r.readPath = path;
        out.push(r);
      }
    }
    const usage = usageOf(m.tokens);
    return out.map((item, i) => ({ ...item, ...(model ? { model } : {}), ...(i === 0 && usage ? { usage } : {}) }));
  }
  if (type === 'info' || type === 'warning' || type === 'error') return text ? [{ item_id: id, at, role: 'system', kind: 'message', text }] : [];
  throw new SkipLine(`unknown message type ${type.slice(0, 64)}`);
}

/** The text of a tool call's `result` (functionResponse parts); null when it has none yet. */
function resultOf(result: unknown): string | null {
  if (!Array.isArray(result) || result.length === 0) return null;
  const out: string[] = [];
  for (const p of result) {
    const r = p && typeof p === 'object' ? ((p as Record<string, unknown>).functionResponse as Record<string, unknown> | undefined) : undefined;
    if (!r || typeof r !== 'object') continue;
    const resp = r.response as Record<string, unknown> | undefined;
    out.push(typeof resp?.output === 'string' ? resp.output : typeof resp?.error === 'string' ? resp.error : JSON.stringify(resp ?? null));
  }
  return out.join('\n');
}

function listed(messages: unknown, state: ParseState): RawItem[] {
  if (!Array.isArray(messages)) return [];
  const out: RawItem[] = [];
  const known = new Set(recorded(state));
  for (const m of messages) {
    if (!m || typeof m !== 'object' || typeof (m as { id?: unknown }).id !== 'string') continue;
    if (known.has((m as { id: string }).id)) continue;
    try {
      out.push(...messageItems(m as Record<string, unknown>, state));
    } catch (e) {
      if (!(e instanceof SkipLine)) throw e;
    }
  }
  return out;
}

export const geminiReader: JsonlReader = {
  agent: 'gemini',
  format: 'jsonl',
  roots: (re) => [tmpRoot(re.env, re.home)],
  *list(re) {
    const root = tmpRoot(re.env, re.home);
    for (const project of dirEntries(root)) {
      const chats = joinPath(root, project, 'chats');
      if (!isDir(chats)) continue;
      for (const name of dirEntries(chats)) {
        if (!name.startsWith('session-') || !name.endsWith('.jsonl') || !isFile(joinPath(chats, name))) continue;
        const file: SessionFile = { path: joinPath(chats, name) };
        yield file;
      }
    }
  },
  locate(re, agentSession, _cwd) {
    if (!/^[0-9a-fA-F-]{8,}$/.test(agentSession)) return null;
    // The original file (the oldest of those named with the id's first 8 characters): a
    // resumed run's stub holds no conversation.
    const suffix = `-${agentSession.slice(0, 8)}.jsonl`;
    const root = tmpRoot(re.env, re.home);
    let best: string | null = null;
    let bestName = '';
    for (const project of dirEntries(root)) {
      const chats = joinPath(root, project, 'chats');
      for (const name of dirEntries(chats)) {
        if (!name.startsWith('session-') || !name.endsWith(suffix) || !isFile(joinPath(chats, name))) continue;
        if (best === null || name < bestName) {
          best = joinPath(chats, name);
          bestName = name;
        }
      }
    }
    return best;
  },
  parseLine(value, _line, state) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SkipLine('not a JSON object');
    const o = value as Record<string, unknown>;
    if (typeof o.$rewindTo === 'string') return [];
    if (o.$set && typeof o.$set === 'object') {
      const set = o.$set as Record<string, unknown>;
      state.meta.agentSession ??= str(set.sessionId);
      return listed(set.messages, state);
    }
    if (typeof o.id === 'string') {
      const items = messageItems(o, state);
      remember(o.id, state);
      return items;
    }
    if (typeof o.sessionId === 'string' && typeof o.projectHash === 'string') {
      state.meta.agentSession ??= o.sessionId;
      state.meta.startedAt ??= str(o.startTime);
      return listed(o.messages, state);
    }
    throw new SkipLine('unknown record shape');
  },
};
