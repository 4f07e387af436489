// The Factory Droid transcript reader (0.225.2 seen: test/fixtures/transcripts/droid/). Droid
// keeps one file per session, `~/.factory/sessions/<cwd, slashes as dashes>/<session id>.jsonl`,
// beside `<session id>.settings.json` (model, token totals); the hook payloads name it as
// `transcript_path`. FACTORY_HOME_OVERRIDE replaces HOME as the folder holding `.factory`
// (the program's code reads it; see the README). Each line is one record:
// - `session_start` (id, title, cwd, version: the format, 2 seen): meta, no item; a version
//   above 2 is an unknown format (UnknownFormat);
// - `message` `{id (uuid), parentId, timestamp, message: {role, content[], modelId, visibility}}`,
//   Anthropic-style blocks: a user message's `text` blocks → user message; its `tool_result`
//   blocks → tool results (`result:<tool_use_id>`; `readPath` for Read); an assistant
//   message's `text` blocks → assistant message (model = modelId), its `tool_use` blocks →
//   tool calls (the block id; `files` = input.file_path of Create, Edit, Read; none for
//   Execute), `thinking` blocks are never kept. Messages with `visibility` `user_only` (hook
//   records) or `llm_only` (the harness's <system-reminder> context) are not the
//   conversation: no item. Droid records no per-message usage (only totals in the settings
//   file), so items carry none.
// - `agent_turn_outcome` and other bookkeeping: no item; an unknown line type is SkipLine.
// Pure: no I/O but readdir and stat.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import type { RawItem } from '../core/transcript.ts';
import { type JsonlReader, type ParseState, type ReaderEnv, type SessionFile, SkipLine, UnknownFormat } from './types.ts';

const KNOWN_VERSION = 2;
const MAX_CALLS = 256;
const FILE_TOOLS = new Set(['Create', 'Edit', 'Read']);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SESSION_FILE_RE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** The folder holding `.factory`: $FACTORY_HOME_OVERRIDE, else HOME. */
function factoryBase(re: ReaderEnv): string {
  return re.env.FACTORY_HOME_OVERRIDE || re.home;
}

/** The session folder Droid names after a working directory. */
export function droidProjectFolder(cwd: string): string {
  return cwd.replace(/[\\/]/g, '-');
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

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((c) => (typeof obj(c)?.text === 'string' ? (obj(c)!.text as string) : ''))
      .filter(Boolean)
      .join('\n');
  return content === undefined ? '' : JSON.stringify(content);
}

function message(rec: Record<string, unknown>, line: number, state: ParseState): RawItem[] {
  const m = obj(rec.message);
  if (!m) throw new SkipLine('droid: message without message');
  const visibility = str(m.visibility);
  if (visibility === 'user_only' || visibility === 'llm_only') return [];
  const id = str(rec.id) ?? `line:${line}`;
  const at = str(rec.timestamp) ?? null;
  const role = str(m.role);
  const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content.map((b) => obj(b) ?? {}) : [];
  const text = blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
  const out: RawItem[] = [];
  if (role === 'user') {
    if (text) {
      if (state.meta.firstPrompt === undefined) state.meta.firstPrompt = text;
      out.push({ item_id: id, at, role: 'user', kind: 'message', text });
    }
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const callId = str(b.tool_use_id) ?? '';
      const call = (obj(state.own.calls) as Record<string, Call> | undefined)?.[callId];
      const item: RawItem = { item_id: `result:${callId || `${id}:${out.length}`}`, at, role: 'tool', kind: 'tool_result', text: resultText(b.content), tool: { name: call?.name ?? '', call_id: callId } };
      if (call?.name === 'Read' && call.path) item.readPath = call.path;
      out.push(item);
    }
    return out;
  }
  if (role === 'assistant') {
    const model = str(m.modelId) ?? state.meta.model;
    if (model) state.meta.model = model;
    if (text) out.push({ item_id: id, at, role: 'assistant', kind: 'message', text });
    for (const b of blocks) {
      if (b.type !== 'tool_use') continue;
      const name = str(b.name) ?? '';
      const callId = str(b.id) ?? `${id}:${out.length}`;
      const path = FILE_TOOLS.has(name) ? str(obj(b.input)?.file_path) : undefined;
      remember(state, callId, path ? { name, path } : { name });
      out.push({ item_id: callId, at, role: 'assistant', kind: 'tool_call', text: '', tool: { name, call_id: callId, input: b.input }, files: path ? [path] : [] });
    }
    for (const item of out) if (model) item.model = model;
    return out;
  }
  throw new SkipLine(`droid: message role ${JSON.stringify(role ?? null).slice(0, 40)}`);
}

function parseLine(value: unknown, line: number, state: ParseState): RawItem[] {
  const rec = obj(value);
  const type = str(rec?.type);
  if (!rec || !type) throw new SkipLine('droid: no type');
  switch (type) {
    case 'session_start': {
      const v = rec.version;
      if (typeof v === 'number' && v > KNOWN_VERSION) throw new UnknownFormat(String(v));
      const m = state.meta;
      m.agentSession ??= str(rec.id);
      m.cwd ??= str(rec.cwd);
      if (typeof v === 'number') m.version ??= String(v);
      return [];
    }
    case 'message':
      if (!state.meta.startedAt && str(rec.timestamp)) state.meta.startedAt = str(rec.timestamp);
      return message(rec, line, state);
    case 'agent_turn_outcome':
      return [];
    default:
      throw new SkipLine(`droid: line type ${JSON.stringify(type).slice(0, 40)}`);
  }
}

function readdir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

export const droidReader: JsonlReader = {
  agent: 'droid',
  format: 'jsonl',
  roots: (re) => [join(factoryBase(re), '.factory', 'sessions')],
  list(re) {
    const root = this.roots(re)[0];
    const out: SessionFile[] = [];
    for (const d of readdir(root)) {
      if (!d.isDirectory()) continue;
      for (const f of readdir(join(root, d.name))) {
        const m = f.isFile() ? SESSION_FILE_RE.exec(f.name) : null;
        if (m) out.push({ path: join(root, d.name, f.name), agentSession: m[1] });
      }
    }
    return out;
  },
  locate(re, agentSession, cwd) {
    if (!UUID_RE.test(agentSession)) return null;
    const root = this.roots(re)[0];
    const name = `${agentSession}.jsonl`;
    if (cwd) {
      const direct = join(root, droidProjectFolder(cwd), name);
      if (fs.existsSync(direct)) return direct;
    }
    for (const d of readdir(root)) if (d.isDirectory() && fs.existsSync(join(root, d.name, name))) return join(root, d.name, name);
    return null;
  },
  parseLine,
};
