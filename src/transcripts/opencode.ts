// opencode's transcript reader (`opencode`, 1.18.33 seen), and Kilo's (kilo.ts: a fork, the
// same store under its own names). Where: one SQLite database for every session, in the
// agent's data folder `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`:
// `opencode.db` for release builds (`opencode-<channel>.db` for others, unless
// `OPENCODE_DISABLE_CHANNEL_DB`), or `$OPENCODE_DB` (absolute, or relative to the data folder).
// Tables `session` (id, directory, title, version, parent_id for a subagent's session, ...),
// `message` (id, session_id, data) and `part` (id, message_id, session_id, data), each `data` a
// JSON document: a message's info (role, time, modelID, tokens, summary) and its parts (text,
// reasoning, tool with its state, step-start/step-finish, file, patch, ...). A resumed run
// (`opencode run --session ID`, `--continue`) adds rows to the same session.
// The hook bundle cannot open SQLite, so this is a payload reader (ADR 0046): at session.idle
// baton's plugin (src/providers/plugin-file.ts) sends the turn's messages as the plugin API
// returns them (`{info, parts}` each) in `transcript_items`; history import reads the same
// shape out of the database through an injected read-only handle (databaseEntries).
// Mapping, one entry = one message: user → its non-synthetic text parts as user/message (id =
// the message id; synthetic parts are context opencode or baton added); assistant → each text
// part as assistant/message (id = the part id; model = modelID; the message's tokens input /
// output / cache.read / cache.write on its first item), each reasoning part with text as
// reasoning (opencode shows it), each tool part as a tool_call (call id, input; files: the
// `filePath` of read / write / edit) and, once completed or failed, its tool_result (`<part
// id>.result`, the output or error; readPath for read); an assistant message marked `summary`
// (a compaction's summary) → system/compaction. Other parts make no item. opencode's ids never
// change and a resumed run's records get new ones.
import { readdirSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { join } from '../core/path.ts';
import type { RawItem, TranscriptAgent } from '../core/transcript.ts';
import { type Db, type DbSession, type ParseState, type PayloadReader, type ReaderEnv, type SessionFile, SkipLine } from './types.ts';

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

const FILE_TOOLS = new Set(['read', 'write', 'edit', 'multiedit']);

interface StoreNames {
  agent: Extract<TranscriptAgent, 'opencode' | 'kilo'>;
  /** The data folder's name under XDG_DATA_HOME. */
  folder: string;
  /** The variable naming the database. */
  dbVar: string;
  /** Database file names in the data folder. */
  dbFile: RegExp;
}

function dataDir(re: ReaderEnv, names: StoreNames): string {
  const xdg = re.env.XDG_DATA_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(re.home, '.local', 'share'), names.folder);
}

function databases(re: ReaderEnv, names: StoreNames): string[] {
  const dir = dataDir(re, names);
  const named = re.env[names.dbVar];
  if (named && named !== ':memory:') return [isAbsolute(named) ? named : join(dir, named)];
  try {
    return readdirSync(dir)
      .filter((n) => names.dbFile.test(n))
      .sort()
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

function textOf(parts: Record<string, unknown>[], keep: (p: Record<string, unknown>) => boolean): string {
  return parts
    .filter((p) => p.type === 'text' && typeof p.text === 'string' && keep(p))
    .map((p) => p.text as string)
    .join('\n');
}

function usageOf(tokens: unknown): RawItem['usage'] {
  if (!isObj(tokens)) return undefined;
  const cache = isObj(tokens.cache) ? tokens.cache : {};
  return { input: num(tokens.input), output: num(tokens.output), cache_read: num(cache.read), cache_write: num(cache.write) };
}

function toolItems(part: Record<string, unknown>, id: string, at: number | null): RawItem[] {
  const name = str(part.tool) ?? '';
  const callId = str(part.callID) ?? id;
  const st = isObj(part.state) ? part.state : {};
  const input = st.input;
  const call: RawItem = { item_id: id, at, role: 'assistant', kind: 'tool_call', text: str(st.title) ?? '', tool: { name, call_id: callId, input } };
  const path = isObj(input) ? str(input.filePath) : undefined;
  if (path && FILE_TOOLS.has(name)) call.files = [path];
  const items = [call];
  if (st.status === 'completed' || st.status === 'error') {
    const time = isObj(st.time) ? st.time : {};
    const result: RawItem = {
      item_id: `${id}.result`,
      at: num(time.end) ?? at,
      role: 'tool',
      kind: 'tool_result',
      text: st.status === 'completed' ? (str(st.output) ?? '') : (str(st.error) ?? 'error'),
      tool: { name, call_id: callId },
    };
    if (path && name === 'read') result.readPath = path;
    items.push(result);
  }
  return items;
}

function entryItems(value: unknown, state: ParseState): RawItem[] {
  if (!isObj(value) || !isObj(value.info) || !Array.isArray(value.parts)) throw new SkipLine('entry is not a message with its parts');
  const info = value.info;
  const id = str(info.id);
  if (!id) throw new SkipLine('message without an id');
  const parts = value.parts.filter(isObj);
  const time = isObj(info.time) ? info.time : {};
  const at = num(time.created) ?? null;
  if (str(info.sessionID) && !state.meta.agentSession) state.meta.agentSession = str(info.sessionID);
  if (at !== null && !state.meta.startedAt) state.meta.startedAt = new Date(at).toISOString();
  if (info.role === 'user') {
    const text = textOf(parts, (p) => p.synthetic !== true);
    const files = parts.filter((p) => p.type === 'file').map((p) => `[file ${str(p.filename) ?? str(p.url) ?? ''}]`);
    const all = [text, ...files].filter(Boolean).join('\n');
    if (!all) return [];
    if (!state.meta.firstPrompt && text.trim()) state.meta.firstPrompt = text;
    return [{ item_id: id, at, role: 'user', kind: 'message', text: all }];
  }
  if (info.role !== 'assistant') throw new SkipLine(`message role ${JSON.stringify(String(info.role)).slice(0, 60)} unknown`);
  const model = str(info.modelID) ?? state.meta.model;
  if (str(info.modelID)) state.meta.model = str(info.modelID);
  const path = isObj(info.path) ? info.path : {};
  if (str(path.cwd) && !state.meta.cwd) state.meta.cwd = str(path.cwd);
  const summary = info.summary === true;
  const items: RawItem[] = [];
  for (const part of parts) {
    const pid = str(part.id);
    if (!pid) continue;
    const ptime = isObj(part.time) ? part.time : {};
    const pat = num(ptime.start) ?? at;
    if (part.type === 'text' && typeof part.text === 'string' && part.synthetic !== true && part.text !== '') {
      items.push(summary ? { item_id: pid, at: pat, role: 'system', kind: 'compaction', text: part.text } : { item_id: pid, at: pat, role: 'assistant', kind: 'message', text: part.text, model });
    } else if (part.type === 'reasoning' && typeof part.text === 'string' && part.text.trim() !== '') {
      items.push({ item_id: pid, at: pat, role: 'assistant', kind: 'reasoning', text: part.text, model });
    } else if (part.type === 'tool') {
      items.push(...toolItems(part, pid, pat));
    }
  }
  const usage = usageOf(info.tokens);
  const first = items.find((i) => i.role === 'assistant');
  if (first) {
    first.model = model;
    first.usage = usage;
  } else if (isObj(info.error) && !summary) {
    // A failed request: what the user saw is its error.
    const data = isObj(info.error.data) ? info.error.data : {};
    items.push({ item_id: id, at, role: 'assistant', kind: 'message', text: str(data.message) ?? str(info.error.name) ?? 'error', model });
  }
  return items;
}

function rowJson(v: unknown): Record<string, unknown> | null {
  if (typeof v !== 'string') return null;
  try {
    const j = JSON.parse(v);
    return isObj(j) ? j : null;
  } catch {
    return null;
  }
}

const iso = (v: unknown): string | undefined => (typeof v === 'number' && Number.isFinite(v) ? new Date(v).toISOString() : undefined);

/** The reader of an opencode-like store (opencode, Kilo). */
export function opencodeLikeReader(names: StoreNames): PayloadReader {
  const reader: PayloadReader = {
    agent: names.agent,
    format: 'payload',
    roots: (re) => [dataDir(re, names)],
    *list(re): Iterable<SessionFile> {
      for (const path of databases(re, names)) yield { path };
    },
    locate(re) {
      return databases(re, names)[0] ?? null;
    },
    parseEntry(value, _index, state) {
      return entryItems(value, state);
    },
    databaseSessions(db: Db): DbSession[] {
      const rows = db.prepare('SELECT id, directory, title, time_created, time_updated FROM session WHERE parent_id IS NULL ORDER BY time_created, id').all() as Record<string, unknown>[];
      // A session's last activity is its newest record: the session row's time_updated can be
      // older than its last message or part (one pass over each table, grouped, not a query per session).
      const latest = new Map<string, number>();
      for (const table of ['message', 'part']) {
        for (const r of db.prepare(`SELECT session_id, MAX(time_updated) AS t FROM ${table} GROUP BY session_id`).all() as { session_id: unknown; t: unknown }[]) {
          if (typeof r.session_id === 'string' && typeof r.t === 'number') latest.set(r.session_id, Math.max(latest.get(r.session_id) ?? 0, r.t));
        }
      }
      return rows
        .filter((r) => typeof r.id === 'string')
        .map((r) => {
          const last = Math.max(typeof r.time_updated === 'number' ? r.time_updated : 0, latest.get(r.id as string) ?? 0);
          return { agentSession: r.id as string, cwd: str(r.directory), title: str(r.title), startedAt: iso(r.time_created), updatedAt: iso(last || r.time_updated) };
        });
    },
    databaseEntries(db: Db, agentSession: string): unknown[] {
      const messages = db.prepare('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(agentSession) as Record<string, unknown>[];
      const parts = db.prepare('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id').all(agentSession) as Record<string, unknown>[];
      const byMessage = new Map<string, Record<string, unknown>[]>();
      for (const p of parts) {
        const data = rowJson(p.data);
        if (!data || typeof p.message_id !== 'string') continue;
        const list = byMessage.get(p.message_id) ?? [];
        list.push({ ...data, id: p.id, sessionID: agentSession, messageID: p.message_id });
        byMessage.set(p.message_id, list);
      }
      return messages.map((m) => {
        const data = rowJson(m.data);
        // A row whose data is not JSON stays an entry, so it is skipped and counted, not lost silently.
        return data ? { info: { ...data, id: m.id, sessionID: agentSession }, parts: byMessage.get(String(m.id)) ?? [] } : { unreadable: m.id };
      });
    },
  };
  return reader;
}

export const opencodeReader = opencodeLikeReader({ agent: 'opencode', folder: 'opencode', dbVar: 'OPENCODE_DB', dbFile: /^opencode(-[A-Za-z0-9._-]+)?\.db$/ });
