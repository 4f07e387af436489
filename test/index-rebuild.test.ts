// The index is a disposable projection: deleted, garbage-filled, of an older schema, or
// impossible to open, the next command still answers from the logs (index.md).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { listSessions, rebuildIndex, searchSessions } from '../src/index/api.ts';
import { SCHEMA_VERSION } from '../src/index/migrations.ts';
import { type RebuildSink, rebuildInto } from '../src/index/rebuild.ts';
import { WorkerSink, sqliteModulePath } from '../src/index/rebuild-worker.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { append, makeSession } from './index-helpers.ts';

function store(): { home: string; ws1: string; ws2: string; ids: string[] } {
  const home = tmpDir();
  const ws1 = tmpDir('baton-ws-');
  const ws2 = tmpDir('baton-ws-');
  const a = makeSession(home, 'Parser rewrite', ws1, { texts: ['the tokenizer drops unicode marks', 'next: fix the lexer'] });
  const b = makeSession(home, 'Release notes', ws2, { texts: ['draft the changelog'] });
  const c = makeSession(home, 'Flaky test hunt', ws1, { texts: ['retry loop hides the race'] });
  append(home, a, 'episode.opened', { episode: 'ep-1', provider: 'claude', provider_session_id: 'p1', source: 'startup', context_file: 'contexts/x.md' }, 'hook:claude');
  append(home, b, 'pointer.published', { revision: 2, generation: 'g-1', status: 'CLEAN' }, 'hook:claude');
  return { home, ws1, ws2, ids: [a, b, c] };
}

const noDb = (home: string): void => {
  for (const f of ['baton.db', 'baton.db-wal', 'baton.db-shm']) fs.rmSync(join(home, f), { force: true });
};

test('deleting baton.db, -wal and -shm: the next listing and search are identical', () => {
  const { home } = store();
  const notes: string[] = [];
  const before = listSessions(home, { cwd: null }, { note: (m) => notes.push(m) });
  assert.equal(before.source, 'index');
  assert.equal(before.sessions.length, 3);
  const hitsBefore = searchSessions(home, 'lexer', { cwd: null, limit: 10 }).hits;
  const cliBefore = baton(['session', 'list', '--all', '--json'], { home });
  const searchCliBefore = baton(['search', '--all', '--json', 'changelog'], { home });
  assert.equal(searchCliBefore.code, 0, searchCliBefore.stderr);
  noDb(home);
  const after = listSessions(home, { cwd: null }, {});
  assert.deepEqual(after.sessions, before.sessions);
  assert.deepEqual(searchSessions(home, 'lexer', { cwd: null, limit: 10 }).hits, hitsBefore);
  noDb(home);
  const cliAfter = baton(['session', 'list', '--all', '--json'], { home });
  assert.equal(cliAfter.code, 0, cliAfter.stderr);
  assert.deepEqual(cliAfter.json, cliBefore.json);
  noDb(home);
  assert.deepEqual(baton(['search', '--all', '--json', 'changelog'], { home }).json, searchCliBefore.json);
  assert.deepEqual(notes, []);
  const s = before.sessions.find((x) => x.title === 'Parser rewrite');
  assert.equal(s?.open_episode?.episode, 'ep-1');
  assert.equal(before.sessions.find((x) => x.title === 'Release notes')?.pointer_status, 'CLEAN');
  assert.ok(before.sessions.every((x) => x.state === 'active'));
});

test('index rebuild rebuilds on demand and reports what it indexed', () => {
  const { home } = store();
  const r = baton(['index', 'rebuild', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.ok, true);
  assert.equal(r.json.sessions, 3);
  assert.equal(r.json.events, 3 * 2 + 4 + 1 + 1);
  assert.deepEqual(r.json.errors, []);
  assert.equal(fs.statSync(join(home, 'baton.db')).mode & 0o777, 0o600);
  assert.equal(r.stdout.split('\n').filter(Boolean).length, 1);
});

test('garbage written over baton.db: the next command moves it aside with a note and lists correctly', () => {
  const { home } = store();
  const before = listSessions(home, { cwd: null }).sessions;
  fs.writeFileSync(join(home, 'baton.db'), 'this is not a database at all, just garbage '.repeat(200));
  const notes: string[] = [];
  const after = listSessions(home, { cwd: null }, { note: (m) => notes.push(m) });
  assert.equal(after.source, 'index');
  assert.deepEqual(after.sessions, before);
  assert.equal(notes.length, 1);
  assert.match(notes[0], /moved it aside/);
  assert.equal(fs.readdirSync(home).filter((n) => n.startsWith('baton.db.corrupt-')).length, 1);
  // And through the binary: stderr says so, stdout is the right answer.
  fs.writeFileSync(join(home, 'baton.db'), Buffer.alloc(8192, 0x5a));
  const r = baton(['search', '--all', '--json', 'tokenizer'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /baton: index: .*moved it aside/);
  assert.equal(r.json.hits.length, 1);
  assert.equal(r.json.hits[0].type, 'context.appended');
});

test('an index of another schema version is rebuilt, not read', () => {
  const { home } = store();
  listSessions(home, { cwd: null });
  const db = new Database(join(home, 'baton.db'));
  db.pragma(`user_version = ${SCHEMA_VERSION + 7}`);
  db.exec('DELETE FROM sessions');
  db.close();
  const notes: string[] = [];
  const r = listSessions(home, { cwd: null }, { note: (m) => notes.push(m) });
  assert.equal(r.sessions.length, 3);
  assert.match(notes.join('\n'), /schema changed/);
});

test('when no index can be had, listing scans the logs and says so', () => {
  const { home } = store();
  const before = listSessions(home, { cwd: null }).sessions;
  noDb(home);
  fs.mkdirSync(join(home, 'baton.db')); // cannot be opened nor replaced: as good as a read-only disk
  const notes: string[] = [];
  const r = listSessions(home, { cwd: null }, { note: (m) => notes.push(m) });
  assert.equal(r.source, 'scan');
  assert.deepEqual(r.sessions, before);
  assert.match(notes.join('\n'), /index unavailable.*scanning the logs/);
  const cli = baton(['search', '--all', '--json', 'changelog'], { home });
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(cli.json.hits.length, 1);
  assert.match(cli.stderr, /scanning the logs instead/);
});

test('a session whose log is corrupt in the middle stays listed, marked corrupt', () => {
  const { home, ids } = store();
  const log = join(home, 'sessions', ids[2], 'events.jsonl');
  const lines = fs.readFileSync(log, 'utf8').split('\n');
  lines[1] = '{"seq":2,"garbage';
  fs.writeFileSync(log, lines.join('\n'));
  noDb(home);
  const tree = treeHash(join(home, 'sessions'));
  const r = listSessions(home, { cwd: null });
  const s = r.sessions.find((x) => x.id === ids[2]);
  assert.ok(s, 'still listed');
  assert.equal(s.corrupt?.line, 2);
  assert.equal(s.title, 'Flaky test hunt');
  assert.equal(r.sessions.length, 3);
  assert.equal(treeHash(join(home, 'sessions')), tree);
});

test('a rebuild on a worker thread indexes exactly what a rebuild on this thread does', () => {
  const { home } = store();
  append(home, listSessions(home, { cwd: null }).sessions[0].id, 'context.appended', { text: 'worker thread words' });
  rebuildIndex(home, { worker: false });
  const one = listSessions(home, { cwd: null }).sessions;
  const hitsOne = searchSessions(home, 'words', { cwd: null, limit: 10 }).hits;
  rebuildIndex(home, { worker: true });
  assert.deepEqual(listSessions(home, { cwd: null }).sessions, one);
  assert.deepEqual(searchSessions(home, 'words', { cwd: null, limit: 10 }).hits, hitsOne);
  assert.equal(hitsOne.length, 1);
});

test('a fresh build leaves FTS5 merging on: the bulk load turns it off, every build path sets it back (ADR 0084)', () => {
  const { home } = store();
  const automerge = (): unknown => {
    const db = new Database(join(home, 'baton.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT k, v FROM event_text_config').all() as { k: string; v: unknown }[];
      return Object.fromEntries(rows.map((r) => [r.k, r.v])).automerge;
    } finally {
      db.close();
    }
  };
  for (const worker of [false, true]) {
    rebuildIndex(home, { worker });
    assert.equal(automerge(), 4, `worker: ${worker}`);
  }
});

test('a sink that fails fails the rebuild at once, never as an error of each session (a dead worker would stall on every one)', () => {
  const { home } = store();
  const before = treeHash(home);
  let calls = 0;
  const failing: RebuildSink = {
    session() {},
    chunk() {
      calls++;
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    },
    flush() {},
    finish() {
      assert.fail('finish after a failed chunk');
    },
  };
  assert.throws(() => rebuildInto(failing, home), /disk is full/);
  assert.equal(calls, 1);
  // A worker that cannot open its database fails the build with its own error.
  const sqlite = sqliteModulePath();
  assert.ok(sqlite);
  const missing = join(tmpDir(), 'gone', 'baton.db.rebuild-x');
  const sink = new WorkerSink(missing, sqlite, [], '');
  try {
    assert.throws(() => rebuildInto(sink, home), /index worker: .*(directory|unable to open)/i);
  } finally {
    sink.close();
  }
  assert.equal(treeHash(home), before, 'a failed build writes nothing in the store');
});
