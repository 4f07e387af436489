// An index changed behind baton's back, or one SQLite gave up writing (issue 11): `session
// list` checks the rows it is about to print against their logs and catches them up, a
// broken schema is rebuilt, and a write transaction SQLite rolled back on its own is the
// scan fallback — never a wrong answer, never exit 1. The logs are never touched.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import Database from 'better-sqlite3';
import { withIndex } from '../src/index/db.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { makeSession } from './index-helpers.ts';

/** A store of three sessions in one workspace, its index built by a first list. */
function store(t: TestContext): { home: string; ws: string; ids: string[] } {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  t.after(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(ws, { recursive: true, force: true });
  });
  const ids = ['alpha', 'beta', 'gamma'].map((title) => makeSession(home, title, ws, { id: title, texts: [`${title} notes about the gyroscope`] }));
  const first = baton(['session', 'list', '--all', '--json'], { home });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.json.sessions.length, 3);
  return { home, ws, ids };
}

/** Every session folder's bytes: what the index's repair must never change. */
function sessionsHash(home: string): string {
  return treeHash(join(home, 'sessions'));
}

function sql(home: string, statement: string): void {
  const db = new Database(join(home, 'baton.db'));
  try {
    db.exec(statement);
  } finally {
    db.close();
  }
}

test('a row deleted behind baton\'s back is listed again at the next list', (t) => {
  const { home } = store(t);
  const before = sessionsHash(home);
  sql(home, "DELETE FROM sessions WHERE id = 'beta'");
  const r = baton(['session', 'list', '--all', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json.sessions.map((s: { id: string }) => s.id).sort(), ['alpha', 'beta', 'gamma']);
  assert.equal(r.json.source, 'index');
  assert.match(r.json.notes.join('\n'), /the index disagreed with the logs/);
  assert.equal(sessionsHash(home), before);
});

test('a row deleted behind baton\'s back is found by the folder count the index recorded, and a session made since is counted again (ADR 0085)', (t) => {
  const { home, ws } = store(t);
  const folders = (): string => {
    const db = new Database(join(home, 'baton.db'), { readonly: true });
    try {
      return String(db.prepare("SELECT value FROM meta WHERE key = 'session_folders'").pluck().get());
    } finally {
      db.close();
    }
  };
  assert.equal(folders(), '3');
  makeSession(home, 'delta', ws, { id: 'delta', texts: ['delta notes'] });
  assert.equal(baton(['session', 'list', '--all', '--json'], { home }).json.sessions.length, 4);
  assert.equal(folders(), '4');
  // The folder's mtime is what the count was recorded with: a row deleted now is missing against it.
  sql(home, "DELETE FROM sessions WHERE id = 'delta'");
  const r = baton(['session', 'list', '--all', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.sessions.length, 4);
  assert.match(r.json.notes.join('\n'), /rows missing/);
});

test('a folder without events (history import keeps a cursor there for a file that gave no item) is no row missing: no note, no sweep, after a catch-up and after a rebuild', (t) => {
  const { home } = store(t);
  fs.mkdirSync(join(home, 'sessions', 'stub', 'transcripts'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(join(home, 'sessions', 'stub', 'transcripts', 'claude-0123456789abcdef.cursor.json'), '{}\n', { mode: 0o600 });
  const before = sessionsHash(home);
  const listed = (): { notes: string[]; ids: string[] } => {
    const r = baton(['session', 'list', '--all', '--json'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json.source, 'index');
    return { notes: r.json.notes ?? [], ids: r.json.sessions.map((s: { id: string }) => s.id).sort() };
  };
  for (let i = 0; i < 2; i++) assert.deepEqual(listed(), { notes: [], ids: ['alpha', 'beta', 'gamma'] });
  assert.equal(baton(['index', 'rebuild'], { home }).code, 0);
  assert.deepEqual(listed(), { notes: [], ids: ['alpha', 'beta', 'gamma'] });
  // A row deleted behind baton's back is still found missing against the count.
  sql(home, "DELETE FROM sessions WHERE id = 'beta'");
  const after = listed();
  assert.deepEqual(after.ids, ['alpha', 'beta', 'gamma']);
  assert.match(after.notes.join('\n'), /rows missing/);
  const doctor = baton(['doctor', '--json'], { home });
  assert.equal(doctor.json.sessions, 3);
  assert.equal(sessionsHash(home), before);
});

test('a row edited behind baton\'s back (its title and log stat) is read again from its log', (t) => {
  const { home } = store(t);
  const before = sessionsHash(home);
  sql(home, "UPDATE sessions SET title = 'forged', events = 99, log_size = 1 WHERE id = 'gamma'");
  const r = baton(['session', 'list', '--all', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  const gamma = r.json.sessions.find((s: { id: string }) => s.id === 'gamma');
  assert.equal(gamma.title, 'gamma');
  assert.equal(gamma.events, 3);
  assert.equal(sessionsHash(home), before);
});

test('a dropped sessions table: list and search rebuild the index and answer, exit 0', (t) => {
  const { home } = store(t);
  const before = sessionsHash(home);
  sql(home, 'DROP TABLE sessions');
  const r = baton(['session', 'list', '--all', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json.sessions.map((s: { id: string }) => s.id).sort(), ['alpha', 'beta', 'gamma']);
  assert.match(r.stderr, /moved it aside .* and rebuilt it from the logs/);
  sql(home, 'DROP TABLE sessions');
  const s = baton(['search', '--all', '--json', 'gyroscope'], { home });
  assert.equal(s.code, 0, s.stderr);
  assert.equal(s.json.hits.length, 3);
  assert.equal(sessionsHash(home), before);
});

test('a write transaction SQLite rolled back on its own ("cannot commit - no transaction is active", as on a full disk) is the scan fallback', (t) => {
  const { home } = store(t);
  const notes: string[] = [];
  const r = withIndex(home, { note: (m) => notes.push(m) }, (db) =>
    db.transaction(() => {
      db.prepare("UPDATE meta SET value = value WHERE key = 'format'").run();
      db.exec('ROLLBACK'); // what SQLite does by itself when a statement fails with SQLITE_FULL or an I/O error
    })(),
  );
  assert.equal(r, null, 'no index answer: the caller scans');
  assert.match(notes.join('\n'), /index unavailable \(cannot commit - no transaction is active\): scanning the logs instead/);
});

test('when the index is unavailable, list and search --json say they scanned, in source and notes', (t) => {
  const { home } = store(t);
  fs.rmSync(join(home, 'baton.db'));
  fs.mkdirSync(join(home, 'baton.db')); // a folder where the database should be: SQLite cannot open it
  const l = baton(['session', 'list', '--all', '--json'], { home });
  assert.equal(l.code, 0, l.stderr);
  assert.equal(l.json.source, 'scan');
  assert.equal(l.json.sessions.length, 3);
  assert.match(l.json.notes.join('\n'), /scanning the logs instead/);
  const s = baton(['search', '--all', '--json', 'gyroscope'], { home });
  assert.equal(s.code, 0, s.stderr);
  assert.equal(s.json.source, 'scan');
  assert.equal(s.json.hits.length, 3);
});
