// pi's transcript reader (`@mariozechner/pi-coding-agent`, 0.73.1 seen; session format
// version 3). Where: one append-only JSON-lines file per session,
// `<sessions>/--<cwd, "/" and ":" as "-">--/<ISO time, ":" and "." as "-">_<session id>.jsonl`,
// `<sessions>` being `$PI_CODING_AGENT_SESSION_DIR`, else `$PI_CODING_AGENT_DIR/sessions`, else
// `~/.pi/agent/sessions` (pi 0.73.1 also honours `--session-dir` and a `sessionDir` in its
// settings.json: a reader cannot see a flag, and roots() reads no file, so those are not
// followed). A resumed run (`pi -c`, `pi --session ID`) appends to the same file.
// Format: line 1 the header `{"type":"session","version":3,"id","timestamp","cwd"}`; then
// entries, each with its own `id` (8 hex) and `parentId` (a tree: /tree and forks branch it):
// `message` (`message.role` user / assistant / toolResult / bashExecution / custom /
// branchSummary / compactionSummary), `compaction` (summary), `branch_summary`,
// `custom_message` (an extension's message; `display: false` ones — baton's own context — are
// not the conversation), and metadata (`model_change`, `thinking_level_change`, `custom`,
// `label`, `session_info`) that makes no item.
// Mapping: a user message → user/message (id = the entry id); an assistant message → its text
// as assistant/message (model, usage input/output/cacheRead/cacheWrite), each visible
// `thinking` block (pi shows them; `redacted` ones are opaque and skipped) as reasoning
// (`<id>.r<n>`), each `toolCall` as tool_call (`<id>.t<n>`, call id and arguments; files: the
// `path` of read / write / edit); a `toolResult` → tool/tool_result (readPath: the path of the
// `read` call it answers); a user's `!command` (bashExecution) → a tool_call and its
// tool_result (`<id>.c`, `<id>`); compaction and branch summaries → system/compaction. Entry
// ids are pi's own and never change, so reading the file twice gives the same ids and a
// resumed run's entries get new ones. A header version above 3 is a format baton does not know.
import { readdirSync } from 'node:fs';
import { join } from '../core/path.ts';
import type { RawItem } from '../core/transcript.ts';
import { type ParseState, type ReaderEnv, type SessionFile, SkipLine, type TranscriptReader, UnknownFormat } from './types.ts';

/** The session format version pi 0.73.1 writes; older ones (1, 2) are read the same, leniently. */
const KNOWN_VERSION = 3;
/** call id → the file a `read` call named, for its result's readPath (bounded). */
const MAX_CALLS = 256;

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function sessionsDir(re: ReaderEnv): string {
  const env = re.env;
  const tilde = (p: string) => (p === '~' ? re.home : p.startsWith('~/') ? join(re.home, p.slice(2)) : p);
  if (env.PI_CODING_AGENT_SESSION_DIR) return tilde(env.PI_CODING_AGENT_SESSION_DIR);
  return join(env.PI_CODING_AGENT_DIR ? tilde(env.PI_CODING_AGENT_DIR) : join(re.home, '.pi', 'agent'), 'sessions');
}

/** pi's folder name for a working directory (getDefaultSessionDir). */
export function piProjectFolder(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

const FILE_RE = /^[^_]+_(.+)\.jsonl$/;

function* sessionFiles(dir: string): Iterable<SessionFile> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const m = FILE_RE.exec(name);
    if (m) yield { path: join(dir, name), agentSession: m[1] };
  }
}

/** The text of a content that is a string or an array of parts (text parts only: an image is named, not kept). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const out: string[] = [];
  for (const part of content) {
    if (!isObj(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') out.push(part.text);
    else if (part.type === 'image') out.push('[image]');
  }
  return out.join('\n');
}

const FILE_TOOLS = new Set(['read', 'write', 'edit']);

function usageOf(u: unknown): RawItem['usage'] {
  if (!isObj(u)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { input: n(u.input), output: n(u.output), cache_read: n(u.cacheRead), cache_write: n(u.cacheWrite) };
}

function remember(state: ParseState, callId: string, path: string): void {
  const calls = (isObj(state.own.readCalls) ? state.own.readCalls : {}) as Record<string, string>;
  const keys = Object.keys(calls);
  if (keys.length >= MAX_CALLS) delete calls[keys[0]];
  calls[callId] = path;
  state.own.readCalls = calls;
}

function recalled(state: ParseState, callId: string): string | undefined {
  const calls = isObj(state.own.readCalls) ? (state.own.readCalls as Record<string, string>) : {};
  const path = calls[callId];
  if (path !== undefined) delete calls[callId];
  return path;
}

function assistantItems(id: string, at: string | null, msg: Record<string, unknown>, state: ParseState): RawItem[] {
  const model = str(msg.model) ?? state.meta.model;
  if (str(msg.model)) state.meta.model = str(msg.model);
  const content = Array.isArray(msg.content) ? msg.content : typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : null;
  if (!content) throw new SkipLine('pi assistant message without content');
  const items: RawItem[] = [];
  const texts: string[] = [];
  let r = 0;
  let t = 0;
  for (const part of content) {
    if (!isObj(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'thinking') {
      const n = r++;
      if (part.redacted !== true && typeof part.thinking === 'string' && part.thinking.trim() !== '') {
        items.push({ item_id: `${id}.r${n}`, at, role: 'assistant', kind: 'reasoning', text: part.thinking, model });
      }
    } else if (part.type === 'toolCall') {
      const n = t++;
      const name = str(part.name) ?? '';
      const callId = str(part.id) ?? `${id}.t${n}`;
      const input = part.arguments;
      const item: RawItem = { item_id: `${id}.t${n}`, at, role: 'assistant', kind: 'tool_call', text: '', tool: { name, call_id: callId, input } };
      const path = isObj(input) ? str(input.path) : undefined;
      if (path && FILE_TOOLS.has(name)) {
        item.files = [path];
        if (name === 'read') remember(state, callId, path);
      }
      items.push(item);
    }
  }
  const usage = usageOf(msg.usage);
  if (texts.length) {
    items.unshift({ item_id: id, at, role: 'assistant', kind: 'message', text: texts.join('\n'), model, usage });
  } else if (items.length) {
    items[0].model = model;
    items[0].usage = usage;
  } else if (typeof msg.errorMessage === 'string' && msg.errorMessage) {
    // A failed request pi shows as an error line: that is what the user saw.
    items.push({ item_id: id, at, role: 'assistant', kind: 'message', text: msg.errorMessage, model });
  }
  return items;
}

function messageItems(id: string, at: string | null, msg: Record<string, unknown>, state: ParseState): RawItem[] {
  switch (msg.role) {
    case 'user': {
      const text = contentText(msg.content);
      if (state.meta.firstPrompt === undefined && text.trim()) state.meta.firstPrompt = text;
      return [{ item_id: id, at, role: 'user', kind: 'message', text }];
    }
    case 'assistant':
      return assistantItems(id, at, msg, state);
    case 'toolResult': {
      const callId = str(msg.toolCallId) ?? '';
      const item: RawItem = { item_id: id, at, role: 'tool', kind: 'tool_result', text: contentText(msg.content), tool: { name: str(msg.toolName) ?? '', call_id: callId } };
      const path = recalled(state, callId);
      if (path) item.readPath = path;
      return [item];
    }
    case 'bashExecution': {
      const command = str(msg.command) ?? '';
      const tool = { name: 'bash', call_id: `${id}.c` };
      return [
        { item_id: `${id}.c`, at, role: 'user', kind: 'tool_call', text: '', tool: { ...tool, input: { command } } },
        { item_id: id, at, role: 'tool', kind: 'tool_result', text: str(msg.output) ?? '', tool },
      ];
    }
    case 'custom':
      return msg.display === true ? [{ item_id: id, at, role: 'system', kind: 'message', text: contentText(msg.content) }] : [];
    case 'branchSummary':
    case 'compactionSummary':
      return [{ item_id: id, at, role: 'system', kind: 'compaction', text: str(msg.summary) ?? '' }];
    default:
      throw new SkipLine(`pi message role ${JSON.stringify(String(msg.role)).slice(0, 60)} unknown`);
  }
}

export const piReader: TranscriptReader = {
  agent: 'pi',
  format: 'jsonl',
  roots: (re) => [sessionsDir(re)],
  *list(re) {
    const root = sessionsDir(re);
    let folders: string[];
    try {
      folders = readdirSync(root, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort();
    } catch {
      return;
    }
    for (const folder of folders) yield* sessionFiles(join(root, folder));
  },
  locate(re, agentSession, cwd) {
    if (!agentSession) return null;
    const match = (dir: string) => {
      for (const f of sessionFiles(dir)) if (f.agentSession === agentSession) return f.path;
      return null;
    };
    if (cwd) {
      const found = match(join(sessionsDir(re), piProjectFolder(cwd)));
      if (found) return found;
    }
    for (const f of piReader.list(re)) if (f.agentSession === agentSession) return f.path;
    return null;
  },
  parseLine(value, line, state) {
    if (!isObj(value)) throw new SkipLine('pi entry is not an object');
    const type = value.type;
    const at = str(value.timestamp) ?? null;
    // Version 1 files had no entry ids: the line's position is as stable.
    const id = str(value.id) ?? `L${line}`;
    switch (type) {
      case 'session': {
        const v = value.version;
        if (typeof v === 'number' && v > KNOWN_VERSION) throw new UnknownFormat(String(v));
        state.meta.version = String(v ?? 1);
        if (str(value.id)) state.meta.agentSession = str(value.id);
        if (str(value.cwd)) state.meta.cwd = str(value.cwd);
        if (at && state.meta.startedAt === undefined) state.meta.startedAt = at;
        return [];
      }
      case 'message':
        if (!isObj(value.message)) throw new SkipLine('pi message entry without a message');
        return messageItems(id, at, value.message, state);
      case 'compaction':
      case 'branch_summary':
        return [{ item_id: id, at, role: 'system', kind: 'compaction', text: str(value.summary) ?? '' }];
      case 'custom_message':
        return value.display === true ? [{ item_id: id, at, role: 'system', kind: 'message', text: contentText(value.content) }] : [];
      case 'model_change':
        if (str(value.modelId)) state.meta.model = str(value.modelId);
        return [];
      case 'thinking_level_change':
      case 'custom':
      case 'label':
      case 'session_info':
        return [];
      default:
        throw new SkipLine(`pi entry type ${JSON.stringify(String(type)).slice(0, 60)} unknown`);
    }
  },
};
