// A fake HOME holding the nine agents' stores, made of the real fixtures (written by the pinned
// agents offline, test/fixtures/transcripts/<agent>/), for `baton history` tests; and the
// checks they share (the store untouched, every item once).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { ROOT, walkTree } from './helpers.ts';

const FIX = join(ROOT, 'test', 'fixtures', 'transcripts');

/** The agents' override variables cleared: each agent's store is its default under HOME. */
export const agentEnv = (home: string): Record<string, string | undefined> => ({
  HOME: home,
  XDG_DATA_HOME: undefined,
  CLAUDE_CONFIG_DIR: undefined,
  CODEX_HOME: undefined,
  GEMINI_CLI_HOME: undefined,
  QWEN_HOME: undefined,
  QWEN_RUNTIME_DIR: undefined,
  COPILOT_HOME: undefined,
  FACTORY_HOME_OVERRIDE: undefined,
  PI_CODING_AGENT_DIR: undefined,
  PI_CODING_AGENT_SESSION_DIR: undefined,
  OPENCODE_DB: undefined,
  KILO_DB: undefined,
  BATON_SESSION: undefined,
});

export interface FakeSession {
  agent: string;
  id: string;
  path: string;
}

const put = (path: string, bytes: Buffer | string): void => {
  fs.mkdirSync(dirname(path), { recursive: true });
  fs.writeFileSync(path, bytes);
};

function sqliteFrom(dumpFile: string, path: string): string {
  const dump = JSON.parse(fs.readFileSync(dumpFile, 'utf8'));
  fs.mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // The dump holds these three tables only: the session's foreign key to `project` is not checked.
  db.pragma('foreign_keys = OFF');
  for (const t of ['session', 'message', 'part']) db.exec(dump.schema[t]);
  for (const t of ['session', 'message', 'part']) {
    for (const row of dump[t]) {
      const r = { ...row };
      if (t !== 'session') r.data = JSON.stringify(r.data);
      const cols = Object.keys(r);
      db.prepare(`INSERT INTO ${t} (${cols.map((c) => `\`${c}\``).join(',')}) VALUES (${cols.map(() => '?').join(',')})`).run(...cols.map((c) => (r[c] !== null && typeof r[c] === 'object' ? JSON.stringify(r[c]) : r[c])));
    }
  }
  db.close(); // a clean close checkpoints and removes -wal and -shm
  return dump.session[0].id;
}

/** Every agent's fixture session at the place the pinned agent keeps it. */
export function fakeAgentStore(home: string): FakeSession[] {
  const out: FakeSession[] = [];
  const idOf = (buf: Buffer, re: RegExp): string => {
    const m = re.exec(buf.toString('utf8'));
    assert.ok(m, `no id ${re}`);
    return m[1];
  };
  const copy = (agent: string, name: string, to: (id: string) => string, re: RegExp): void => {
    const b = fs.readFileSync(join(FIX, agent, name));
    const id = idOf(b, re);
    const path = to(id);
    put(path, b);
    out.push({ agent, id, path });
  };
  copy('claude', 'claude-2.1.328-session.jsonl', (id) => join(home, '.claude', 'projects', '-home-u-proj', `${id}.jsonl`), /"sessionId":"([^"]+)"/);
  copy('codex', 'codex-0.171.0-session.jsonl', (id) => join(home, '.codex', 'sessions', '2026', '12', '02', `rollout-2026-12-02T00-38-31-${id}.jsonl`), /"session_id":"([^"]+)"/);
  copy('qwen', 'qwen-0.24.4-session.jsonl', (id) => join(home, '.qwen', 'projects', '-home-u-proj', 'chats', `${id}.jsonl`), /"sessionId":"([^"]+)"/);
  copy('copilot', 'copilot-1.0.102-session.jsonl', (id) => join(home, '.copilot', 'session-state', id, 'events.jsonl'), /"sessionId":"([^"]+)"/);
  copy('droid', 'droid-0.225.2-session.jsonl', (id) => join(home, '.factory', 'sessions', '-home-u-proj', `${id}.jsonl`), /"type":"session_start","id":"([^"]+)"/);
  copy('pi', 'pi-0.73.1-session.jsonl', (id) => join(home, '.pi', 'agent', 'sessions', '--tmp-rec-project--', `2026-12-02T00-40-11-355Z_${id}.jsonl`), /"type":"session","version":3,"id":"([^"]+)"/);
  // Gemini: the session's file and the stub its resumed run wrote (one session, two files).
  for (const name of ['session-2026-12-02T00-42-8d5c137a.jsonl', 'session-2026-12-02T00-43-8d5c137a.jsonl']) {
    put(join(home, '.gemini', 'tmp', 'project', 'chats', name), fs.readFileSync(join(FIX, 'gemini', `gemini-0.61.0-${name}`)));
  }
  const gid = idOf(fs.readFileSync(join(FIX, 'gemini', 'gemini-0.61.0-session-2026-12-02T00-42-8d5c137a.jsonl')), /"sessionId":"([^"]+)"/);
  out.push({ agent: 'gemini', id: gid, path: join(home, '.gemini', 'tmp', 'project', 'chats', 'session-2026-12-02T00-42-8d5c137a.jsonl') });
  for (const [agent, version, file] of [
    ['opencode', '1.18.33', 'opencode.db'],
    ['kilo', '7.7.7', 'kilo.db'],
  ]) {
    const path = join(home, '.local', 'share', agent, file);
    out.push({ agent, id: sqliteFrom(join(FIX, agent, `${agent}-${version}-db.json`), path), path });
  }
  // Old mtimes, so a run that touched a file would show.
  walkTree(home, (p, st) => {
    if (st.isFile()) fs.utimesSync(p, new Date('2026-12-02T01:00:00Z'), new Date('2026-12-02T01:00:00Z'));
  });
  return out;
}

/** Path → bytes digest, size, mtime and mode of every entry under dir (lstat: links as links). */
export function snapshot(dir: string): Map<string, string> {
  const m = new Map<string, string>();
  walkTree(dir, (p, st) => {
    const digest = st.isFile() ? createHash('sha256').update(fs.readFileSync(p)).digest('hex') : st.isSymbolicLink() ? fs.readlinkSync(p) : 'dir';
    m.set(p.slice(dir.length), `${digest} ${st.size} ${st.isDirectory() ? '' : st.mtimeMs} ${st.mode}`);
  });
  return m;
}

export function assertUnchanged(before: Map<string, string>, after: Map<string, string>): void {
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'no file appeared or went away in the agents\' store');
  for (const [k, v] of before) assert.equal(after.get(k), v, `${k} unchanged (bytes, size, mtime, mode)`);
}

/** The transcript items of a session's log. */
export function itemsOf(batonHome: string, id: string): any[] {
  const log = join(batonHome, 'sessions', id, 'events.jsonl');
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"transcript.item"'))
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'transcript.item');
}

/** No item twice: (agent_session, item_id) unique among first records (a changed item supersedes). */
export function assertOnce(items: any[]): void {
  const keys = items.filter((e) => e.payload.supersedes === undefined).map((e) => `${e.payload.agent_session}\u0000${e.payload.item_id}`);
  assert.equal(new Set(keys).size, keys.length, 'every item exactly once');
  const full = items.map((e) => JSON.stringify({ ...e.payload, supersedes: undefined }));
  assert.equal(new Set(full).size, full.length, 'no record of the same content twice');
}

export function createdEvent(batonHome: string, id: string): any {
  const first = fs.readFileSync(join(batonHome, 'sessions', id, 'events.jsonl'), 'utf8').split('\n')[0];
  return JSON.parse(first);
}
