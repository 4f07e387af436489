// A listing's catch-up leaves new search chunks in text_pending (writer.ts) instead of
// writing them into event_text; search, doctor and any other reader move them in first.
// Pins: nothing a listing caught up is missing from search, a `session redact` of text a
// listing left pending is applied, and a re-projected session leaves no pending chunk behind.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { listSessions, searchSessions } from '../src/index/api.ts';
import { FsStore } from '../src/store/store.ts';
import { tmpDir } from './helpers.ts';
import { WRITER, makeSession } from './index-helpers.ts';

/** Chunks holding a term, in event_text or still pending (what the index holds, not what search shows). */
const indexed = (home: string, term: string): number => {
  const db = new Database(join(home, 'baton.db'), { readonly: true });
  try {
    const fts = db.prepare('SELECT count(*) FROM event_text WHERE event_text MATCH ?').pluck().get(term) as number;
    const held = db.prepare("SELECT count(*) FROM text_pending WHERE text LIKE '%' || ? || '%'").pluck().get(term) as number;
    return fts + held;
  } finally {
    db.close();
  }
};

const pending = (home: string): number => {
  const db = new Database(join(home, 'baton.db'), { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM text_pending').pluck().get() as number;
  } finally {
    db.close();
  }
};

/** Appends a context entry; returns its seq. */
const note = (home: string, id: string, text: string): number => {
  const evs = new FsStore(home).append(id, { type: 'context.appended', surface: 'cli', actor: 'user', payload: { text } }, WRITER);
  return evs[evs.length - 1].seq;
};

const hits = (home: string, q: string): string[] => searchSessions(home, q, { cwd: null, limit: 20 }).hits.map((h) => h.session);

test('texts caught up by a listing are pending, then found by the next search', () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const a = makeSession(home, 'first', ws, { texts: ['alpha marmalade'] });
  const b = makeSession(home, 'second', ws);
  assert.deepEqual(hits(home, 'marmalade'), [a]);
  note(home, a, 'tangerine one');
  note(home, b, 'tangerine two');
  assert.equal(listSessions(home, { cwd: null }).sessions.length, 2);
  assert.ok(pending(home) >= 2, 'the listing left its chunks pending');
  assert.deepEqual(hits(home, 'tangerine').sort(), [a, b].sort());
  assert.equal(pending(home), 0, 'search moved them into event_text');
  assert.deepEqual(hits(home, 'marmalade'), [a], 'older texts untouched');
});

test('a session redact of text a listing left pending is applied', () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const a = makeSession(home, 'first', ws);
  listSessions(home, { cwd: null });
  const seq = note(home, a, 'the codename gyroscope calibration');
  listSessions(home, { cwd: null });
  assert.ok(pending(home) >= 1);
  new FsStore(home).append(a, { type: 'context.rewritten', surface: 'cli', actor: 'user', payload: { prev_seq: seq, summary: 'hid it', redacts: [seq], pattern: 'gyro\\w+' } }, WRITER);
  listSessions(home, { cwd: null });
  assert.equal(indexed(home, 'gyroscope'), 0, 'not indexed in the clear, pending or not');
  assert.deepEqual(hits(home, 'gyroscope'), []);
  assert.equal(indexed(home, 'gyroscope'), 0);
  assert.deepEqual(hits(home, 'calibration'), [a], 'the rest of the entry stays searchable');
});

test('a session re-projected after a conflict leaves no pending chunk of its old history', (t) => {
  process.env.BATON_INDEX_SWEEP_MS = '0'; // every read sweeps
  t.after(() => {
    delete process.env.BATON_INDEX_SWEEP_MS;
  });
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const a = makeSession(home, 'first', ws);
  listSessions(home, { cwd: null });
  const log = join(home, 'sessions', a, 'events.jsonl');
  const before = fs.readFileSync(log);
  note(home, a, 'zeppelin words');
  listSessions(home, { cwd: null });
  assert.ok(pending(home) >= 1);
  // The log loses its last line (a restore from backup): the index re-projects the session.
  fs.writeFileSync(log, before); // no feed line announces it: the stat sweep finds it
  listSessions(home, { cwd: null });
  assert.equal(indexed(home, 'zeppelin'), 0);
  assert.deepEqual(hits(home, 'zeppelin'), []);
  assert.equal(indexed(home, 'zeppelin'), 0);
});
