// Claude Code's transcript reader (2.1.328 seen, test/fixtures/transcripts/claude/README.md).
//
// Where: `<config>/projects/<cwd, every non-alphanumeric character as '-'>/<session id>.jsonl`,
// `<config>` being $CLAUDE_CONFIG_DIR when set (seen: a run with it set wrote there), else
// ~/.claude. Subagents write `<session id>/subagents/*.jsonl` beside it (not
// listed here: a subagent's items are its own). Folder names longer than 200 characters get a
// hash suffix; `locate` then finds the file by its name in any project folder.
//
// Format: JSON lines, appended. Lines with a `uuid` and `type` `user`/`assistant` carry the
// conversation (`message` in the Messages API's shape); every other `type` (queue-operation,
// attachment, api-request*, tools-used, last-prompt, cost-state, mode, atis-latch, system,
// ...) is metadata: no item. Each line names the agent `version`; there is no format version,
// so no file is refused for its version.
//
// Mapping (item_id = the line's `uuid`, `<uuid>:<n>` for the n-th further item of one line):
// - user, string content or text blocks → user message; `isMeta` lines (caveats the CLI adds)
//   → none; `isCompactSummary` → system compaction (the summary the agent wrote, in the text
//   Claude Code wraps it in); a slash command (`<command-name>`) → user message as typed
//   (`/compact ARGS`), its output (`<local-command-stdout>`) → system message.
// - user tool_result blocks → tool result (name from the call, remembered by its id; readPath
//   = the Read call's file_path).
// - assistant text → assistant message (model; usage once per API message id: Claude Code
//   writes each content block on its own line with the message's usage repeated); tool_use →
//   tool call (name, id, input; files = file_path/notebook_path of Read, Write, Edit,
//   MultiEdit, NotebookEdit; none for Bash); `thinking` with visible text → reasoning;
//   `redacted_thinking` (encrypted) → never.
import type { ItemUsage, RawItem } from '../core/transcript.ts';
import { type JsonlReader, type ParseState, type SessionFile, SkipLine } from './types.ts';
import { currentRun, dirEntries, isDir, isFile, joinPath, noteRunTime, recalledCall, rememberCall, startRun, str, textOfBlocks } from './reader-util.ts';

const META_TYPES = new Set([
  'queue-operation',
  'attachment',
  'api-request',
  'api-request-blob',
  'api-request-shape',
  'tools-used',
  'last-prompt',
  'cost-state',
  'mode',
  'atis-latch',
  'system',
  'summary',
  'file-history-snapshot',
  'custom-title',
  'ai-title',
  'progress',
  'tag',
  'agent-name',
  'pr-link',
  'worktree-state',
]);

const FILE_TOOLS = new Set(['Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

function configHome(env: NodeJS.ProcessEnv, home: string): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && dir.trim() !== '' ? dir : joinPath(home, '.claude');
}

/** Claude Code's project folder name for a working directory. */
export function claudeProjectDir(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

function usageOf(u: unknown): ItemUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const o = u as Record<string, unknown>;
  const n = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  return { input: n(o.input_tokens), output: n(o.output_tokens), cache_read: n(o.cache_read_input_tokens), cache_write: n(o.cache_creation_input_tokens) };
}

function filesOf(name: string, input: unknown): string[] {
  if (!FILE_TOOLS.has(name) || !input || typeof input !== 'object') return [];
  const o = input as Record<string, unknown>;
  const p = str(o.file_path) ?? str(o.notebook_path);
  return p ? [p] : [];
}

function noteMeta(o: Record<string, unknown>, state: ParseState): void {
  const m = state.meta;
  m.agentSession ??= str(o.sessionId);
  m.cwd ??= str(o.cwd);
  if (str(o.version)) m.version = str(o.version);
  m.startedAt ??= str(o.timestamp);
}

const tagged = (text: string, tag: string): string | undefined => {
  const open = `<${tag}>`;
  const start = text.indexOf(open);
  const end = text.indexOf(`</${tag}>`);
  return start >= 0 && end > start ? text.slice(start + open.length, end) : undefined;
};

/** A slash command the user ran (`<command-name>`) as what they typed; its output (`<local-command-stdout>`) as a system message. */
function localCommand(text: string): Pick<RawItem, 'role' | 'kind' | 'text'> | null {
  const t = text.trimStart();
  if (t.startsWith('<command-name>')) {
    const args = tagged(t, 'command-args')?.trim();
    return { role: 'user', kind: 'message', text: `${tagged(t, 'command-name') ?? ''}${args ? ` ${args}` : ''}` };
  }
  for (const tag of ['local-command-stdout', 'local-command-stderr']) if (t.startsWith(`<${tag}>`)) return { role: 'system', kind: 'message', text: tagged(t, tag) ?? '' };
  return null;
}

function userItems(o: Record<string, unknown>, id: string, at: string | null, state: ParseState): RawItem[] {
  const msg = o.message as Record<string, unknown> | undefined;
  const content = msg?.content;
  if (o.isMeta === true) return [];
  if (o.isCompactSummary === true) return [{ item_id: id, at, role: 'system', kind: 'compaction', text: typeof content === 'string' ? content : textOfBlocks(content) }];
  if (typeof content === 'string') {
    const local = localCommand(content);
    if (local) return [{ item_id: id, at, ...local }];
    state.meta.firstPrompt ??= content;
    return [{ item_id: id, at, role: 'user', kind: 'message', text: content }];
  }
  if (!Array.isArray(content)) throw new SkipLine('user line without message content');
  const out: RawItem[] = [];
  const texts: string[] = [];
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    const block = b as Record<string, unknown>;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'tool_result') {
      const callId = str(block.tool_use_id) ?? '';
      const call = recalledCall(state, callId);
      const text = typeof block.content === 'string' ? block.content : textOfBlocks(block.content);
      const item: RawItem = { item_id: '', at, role: 'tool', kind: 'tool_result', text, tool: { name: call?.name ?? '', call_id: callId } };
      if (call?.name === 'Read' && call.path) item.readPath = call.path;
      out.push(item);
    }
  }
  if (texts.length) {
    const text = texts.join('\n');
    state.meta.firstPrompt ??= text;
    out.unshift({ item_id: '', at, role: 'user', kind: 'message', text });
  }
  return out.map((item, i) => ({ ...item, item_id: i === 0 ? id : `${id}:${i}` }));
}

function assistantItems(o: Record<string, unknown>, id: string, at: string | null, state: ParseState): RawItem[] {
  const msg = o.message as Record<string, unknown> | undefined;
  if (!msg || !Array.isArray(msg.content)) throw new SkipLine('assistant line without message content');
  const model = str(msg.model) && msg.model !== '<synthetic>' ? (msg.model as string) : undefined;
  if (model) state.meta.model = model;
  // One API message is written as one line per content block, each with the message's usage.
  const msgId = str(msg.id);
  const usage = msgId && state.own.lastMessage === msgId ? undefined : usageOf(msg.usage);
  if (msgId) state.own.lastMessage = msgId;
  const out: RawItem[] = [];
  for (const b of msg.content) {
    if (!b || typeof b !== 'object') continue;
    const block = b as Record<string, unknown>;
    if (block.type === 'text' && typeof block.text === 'string') out.push({ item_id: '', at, role: 'assistant', kind: 'message', text: block.text });
    else if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim() !== '') out.push({ item_id: '', at, role: 'assistant', kind: 'reasoning', text: block.thinking });
    else if (block.type === 'tool_use') {
      const name = str(block.name) ?? '';
      const callId = str(block.id) ?? '';
      const files = filesOf(name, block.input);
      rememberCall(state, callId, { name, ...(files[0] ? { path: files[0] } : {}) });
      const item: RawItem = { item_id: '', at, role: 'assistant', kind: 'tool_call', text: '', tool: { name, call_id: callId, input: block.input } };
      if (files.length) item.files = files;
      out.push(item);
    }
  }
  return out.map((item, i) => {
    const x: RawItem = { ...item, item_id: i === 0 ? id : `${id}:${i}` };
    if (model) x.model = model;
    if (i === 0 && usage) x.usage = usage;
    return x;
  });
}

export const claudeReader: JsonlReader = {
  agent: 'claude',
  format: 'jsonl',
  roots: (re) => [joinPath(configHome(re.env, re.home), 'projects')],
  *list(re) {
    const root = joinPath(configHome(re.env, re.home), 'projects');
    for (const project of dirEntries(root)) {
      const dir = joinPath(root, project);
      if (!isDir(dir)) continue;
      for (const name of dirEntries(dir)) {
        if (!name.endsWith('.jsonl') || !isFile(joinPath(dir, name))) continue;
        const file: SessionFile = { path: joinPath(dir, name), agentSession: name.slice(0, -'.jsonl'.length) };
        yield file;
      }
    }
  },
  locate(re, agentSession, cwd) {
    if (!/^[A-Za-z0-9._-]+$/.test(agentSession)) return null;
    const root = joinPath(configHome(re.env, re.home), 'projects');
    const name = `${agentSession}.jsonl`;
    if (cwd) {
      const direct = joinPath(root, claudeProjectDir(cwd), name);
      if (isFile(direct)) return direct;
    }
    for (const project of dirEntries(root)) {
      const p = joinPath(root, project, name);
      if (isFile(p)) return p;
    }
    return null;
  },
  parseLine(value, line, state) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SkipLine('not a JSON object');
    const o = value as Record<string, unknown>;
    const type = str(o.type);
    if (!type) throw new SkipLine('line without type');
    if (!state.meta.runs) startRun(state, line, null, 'startup');
    if (type !== 'user' && type !== 'assistant') {
      if (META_TYPES.has(type)) return [];
      throw new SkipLine(`unknown line type ${type.slice(0, 64)}`);
    }
    const id = str(o.uuid);
    if (!id) throw new SkipLine(`${type} line without uuid`);
    noteMeta(o, state);
    const at = str(o.timestamp) ?? null;
    // A prompt's line carries turnPosition; promptIndex counts the prompts of one process, so
    // 0 again after prompts were seen is a new run (a resume) of the same session in the same file.
    const tp = o.turnPosition;
    if (type === 'user' && tp && typeof tp === 'object') {
      if ((tp as { promptIndex?: unknown }).promptIndex === 0 && (currentRun(state)?.prompts ?? 0) > 0) startRun(state, line, at, 'resume');
      const r = currentRun(state);
      if (r) r.prompts++;
    }
    noteRunTime(state, at);
    return type === 'user' ? userItems(o, id, at, state) : assistantItems(o, id, at, state);
  },
};
