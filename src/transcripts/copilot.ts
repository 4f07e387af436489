// The GitHub Copilot CLI transcript reader (1.0.102 seen: test/fixtures/transcripts/copilot/).
// Copilot keeps one folder per session, `~/.copilot/session-state/<session id>/`, with
// `events.jsonl` (the transcript, appended by every run of the session: `--resume=ID` adds to
// it) beside workspace.yaml, checkpoints and locks; the hook payloads name it as
// `transcriptPath`. COPILOT_HOME replaces ~/.copilot (the program reads it; see the README).
// Each line is one event `{"type", "id" (uuid), "timestamp", "parentId", "data"}`:
// - `session.start` (data.version: the format, 1 seen; sessionId, copilotVersion, selectedModel,
//   context.cwd, startTime) and `session.resume`: meta, no item;
// - `user.message` → user message (data.content: what the user typed, not transformedContent);
// - `assistant.message` → an assistant message when data.content is not empty (model
//   data.model, usage from the `session.usage_record` just before it: inputTokens,
//   outputTokens, cacheReadTokens, cacheWriteTokens), and one tool call per
//   data.toolRequests[] (its toolCallId is the item id; `files` = the path of `view`,
//   `create`, `edit`; none for `bash`);
// - `tool.execution_complete` → tool result (data.result.content; `readPath` for `view`);
// - `session.compaction_complete` → compaction (data.summaryContent);
// - every other `session.*`, `hook.*`, `model.*` event, `system.message` (the system prompt),
//   `assistant.turn_start/turn_end`, `tool.execution_start`: no item. Anything else is an
//   unknown shape (SkipLine). A `session.start` whose data.version is above 1 is an unknown
//   format (UnknownFormat). Pure: no I/O but readdir.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import type { ItemUsage, RawItem } from '../core/transcript.ts';
import { type JsonlReader, type ParseState, type ReaderEnv, SkipLine, UnknownFormat } from './types.ts';
import { currentRun, noteRunTime, startRun } from './reader-util.ts';

/** The format version this reader knows (session.start data.version). */
const KNOWN_VERSION = 1;
const MAX_CALLS = 256;
const FILE_TOOLS = new Set(['view', 'create', 'edit']);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

function copilotHome(re: ReaderEnv): string {
  return re.env.COPILOT_HOME || join(re.home, '.copilot');
}

function usageOf(u: Record<string, unknown> | undefined): ItemUsage | undefined {
  if (!u) return undefined;
  const out: ItemUsage = {};
  const pairs: [keyof ItemUsage, unknown][] = [
    ['input', u.inputTokens],
    ['output', u.outputTokens],
    ['cache_read', u.cacheReadTokens],
    ['cache_write', u.cacheWriteTokens],
  ];
  for (const [k, v] of pairs) if (num(v) !== undefined) out[k] = num(v);
  return Object.keys(out).length ? out : undefined;
}

interface Call {
  name: string;
  path?: string;
}

function remember(state: ParseState, id: string, call: Call): void {
  const calls = (obj(state.own.calls) ?? {}) as Record<string, Call>;
  calls[id] = call;
  const keys = Object.keys(calls);
  if (keys.length > MAX_CALLS) delete calls[keys[0]];
  state.own.calls = calls;
}

function assistantMessage(d: Record<string, unknown>, id: string, at: string | null, state: ParseState): RawItem[] {
  const out: RawItem[] = [];
  const model = str(d.model) ?? state.meta.model;
  const text = str(d.content) ?? '';
  if (text) out.push({ item_id: id, at, role: 'assistant', kind: 'message', text });
  for (const r of Array.isArray(d.toolRequests) ? d.toolRequests : []) {
    const req = obj(r);
    const callId = str(req?.toolCallId);
    if (!req || !callId) continue;
    const name = str(req.name) ?? '';
    const input = req.arguments;
    const path = FILE_TOOLS.has(name) ? str(obj(input)?.path) : undefined;
    remember(state, callId, path ? { name, path } : { name });
    out.push({ item_id: callId, at, role: 'assistant', kind: 'tool_call', text: '', tool: { name, call_id: callId, input }, files: path ? [path] : [] });
  }
  for (const item of out) if (model) item.model = model;
  // The usage of the model call that produced this message (recorded just before it).
  const usage = state.own.usage as ItemUsage | undefined;
  if (usage && out.length) {
    out[0].usage = usage;
    delete state.own.usage;
  }
  return out;
}

function parseLine(value: unknown, line: number, state: ParseState): RawItem[] {
  const rec = obj(value);
  const type = str(rec?.type);
  const d = obj(rec?.data);
  if (!rec || !type || !d) throw new SkipLine('copilot: no type or data');
  const id = str(rec.id) ?? `line:${line}`;
  const at = str(rec.timestamp) ?? null;
  switch (type) {
    case 'session.start': {
      const v = d.version;
      if (typeof v === 'number' && v > KNOWN_VERSION) throw new UnknownFormat(String(v));
      const m = state.meta;
      m.agentSession ??= str(d.sessionId);
      m.version = str(d.copilotVersion) ?? m.version;
      m.cwd ??= str(obj(d.context)?.cwd);
      m.model = str(d.selectedModel) ?? m.model;
      m.startedAt ??= str(d.startTime) ?? at ?? undefined;
      startRun(state, line, at, m.runs ? 'resume' : 'startup');
      return [];
    }
    case 'session.shutdown': {
      const r = currentRun(state);
      if (r) {
        r.ended = str(d.shutdownType) ?? 'shutdown';
        noteRunTime(state, at);
      }
      return [];
    }
    case 'session.resume':
      startRun(state, line, at, 'resume');
      state.meta.model = str(d.selectedModel) ?? state.meta.model;
      state.meta.cwd ??= str(obj(d.context)?.cwd);
      return [];
    case 'session.usage_record':
      state.own.usage = usageOf(obj(d.usage));
      return [];
    case 'session.compaction_complete': {
      const text = str(d.summaryContent);
      return text ? [{ item_id: id, at, role: 'system', kind: 'compaction', text }] : [];
    }
    case 'user.message': {
      const text = str(d.content) ?? '';
      const r = currentRun(state);
      if (r) r.prompts++;
      noteRunTime(state, at);
      if (state.meta.firstPrompt === undefined && text) state.meta.firstPrompt = text;
      return [{ item_id: id, at, role: 'user', kind: 'message', text }];
    }
    case 'assistant.message':
      noteRunTime(state, at);
      return assistantMessage(d, id, at, state);
    case 'tool.execution_complete': {
      const callId = str(d.toolCallId) ?? '';
      const call = (obj(state.own.calls) as Record<string, Call> | undefined)?.[callId];
      const result = obj(d.result);
      const content = result?.content;
      const text = typeof content === 'string' ? content : content === undefined ? str(obj(d.error)?.message) ?? '' : JSON.stringify(content);
      const item: RawItem = { item_id: id, at, role: 'tool', kind: 'tool_result', text, tool: { name: call?.name ?? '', call_id: callId } };
      if (call?.name === 'view' && call.path) item.readPath = call.path;
      return [item];
    }
    case 'system.message':
    case 'assistant.turn_start':
    case 'assistant.turn_end':
    case 'tool.execution_start':
      return [];
    default:
      if (/^(session|hook|model)\./.test(type)) return [];
      throw new SkipLine(`copilot: event ${JSON.stringify(type).slice(0, 40)}`);
  }
}

export const copilotReader: JsonlReader = {
  agent: 'copilot',
  format: 'jsonl',
  roots: (re) => [join(copilotHome(re), 'session-state')],
  list(re) {
    const root = this.roots(re)[0];
    let names: fs.Dirent[] = [];
    try {
      names = fs.readdirSync(root, { withFileTypes: true });
    } catch {
      return [];
    }
    return names.filter((e) => e.isDirectory() && UUID_RE.test(e.name)).map((e) => ({ path: join(root, e.name, 'events.jsonl'), agentSession: e.name }));
  },
  locate(re, agentSession) {
    if (!UUID_RE.test(agentSession)) return null;
    const path = join(this.roots(re)[0], agentSession, 'events.jsonl');
    return fs.existsSync(path) ? path : null;
  },
  parseLine,
};
