// Reconciled on read (index.md): a long-lived reader sees what other processes append,
// catch-up reads only the new tail, and a log that stopped being an extension of what was
// indexed is one projection_conflict, re-projected from the log, the folder untouched.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { indexConflictFor, listSessions } from '../src/index/api.ts';
import { openIndex } from '../src/index/db.ts';
import { indexHealth } from '../src/index/health.ts';
import { readLogInto, statLog } from '../src/index/logread.ts';
import { emptyRow } from '../src/index/project.ts';
import { listFromIndex } from '../src/index/query.ts';
import { reconcile } from '../src/index/reconcile.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { append, makeSession } from './index-helpers.ts';

const savedSweep = process.env.BATON_INDEX_SWEEP_MS;
after(() => {
  if (savedSweep === undefined) delete process.env.BATON_INDEX_SWEEP_MS;
  else process.env.BATON_INDEX_SWEEP_MS = savedSweep;
});

test('a reader holding the index open sees sessions and events created by other processes', () => {
  process.env.BATON_INDEX_SWEEP_MS = '3600000'; // no stat sweep: the change feed alone must tell
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  makeSession(home, 'first', ws);
  const db = openIndex(home);
  assert.ok(db);
  try {
    const look = () => {
      reconcile(db, home, { nowMs: Date.now() });
      return listFromIndex(db, home, { cwd: null }, Date.now());
    };
    assert.equal(look().length, 1);
    const r = baton(['session', 'new', 'from another process', '--cwd', ws, '--json'], { home });
    assert.equal(r.code, 0, r.stderr);
    const id = r.json.id ?? r.json.session?.id ?? r.stdout.trim();
    let seen = look();
    assert.equal(seen.length, 2);
    const mine = seen.find((s) => s.title === 'from another process');
    assert.ok(mine);
    const events = mine.events;
    for (let i = 0; i < 3; i++) {
      const a = baton(['session', 'append', mine.id, '--text', `note ${i} from outside`], { home });
      assert.equal(a.code, 0, a.stderr);
    }
    seen = look();
    assert.equal(seen.find((s) => s.id === mine.id)?.events, events + 3);
    assert.equal(seen[0].id, mine.id, 'newest first');
    assert.ok(typeof id === 'string');
  } finally {
    db.close();
  }
});

test('catch-up reads from the indexed offset: bytes before the last indexed line are never read', () => {
  const home = tmpDir();
  const id = makeSession(home, 'offsets', tmpDir('baton-ws-'), { texts: ['one', 'two'] });
  const log = join(home, 'sessions', id, 'events.jsonl');
  const row = emptyRow(id);
  readLogInto(log, row, statLog(log)?.size ?? 0);
  assert.equal(row.events, 4);
  append(home, id, 'context.appended', { text: 'three' });
  // Scribble over everything before the last indexed line (same length): a reader that
  // re-read the log from the start would fail; one that reads the tail does not notice.
  const copy = join(tmpDir(), 'events.jsonl');
  const bytes = fs.readFileSync(log);
  bytes.fill(0x78, 0, row.line_start);
  fs.writeFileSync(copy, bytes);
  const texts: string[] = [];
  const res = readLogInto(copy, row, bytes.length, (op) => op.kind === 'text' && texts.push(op.text));
  assert.deepEqual(res, { ok: true });
  assert.equal(row.events, 5);
  assert.deepEqual(texts, ['three']);
  assert.equal(row.corrupt, null);
});

test('each line\'s offset is its byte offset and its text as written, in an ASCII log and in one with other scripts, a torn tail left', () => {
  const home = tmpDir();
  for (const texts of [['plain', 'ascii only', 'still ascii'], ['plain', 'přílišné žluťoučké', '中文的笔记 and more', 'emoji \u{1F600} after']]) {
    const id = makeSession(home, 'offsets', tmpDir('baton-ws-'), { texts });
    const log = join(home, 'sessions', id, 'events.jsonl');
    fs.appendFileSync(log, '{"seq":99,"torn'); // an unfinished line: not projected, not an error
    const bytes = fs.readFileSync(log);
    const starts = [0];
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10 && i + 1 < bytes.length) starts.push(i + 1);
    const seen: { off: number; text: string }[] = [];
    const row = emptyRow(id);
    const res = readLogInto(log, row, bytes.length, (op) => op.kind === 'text' && op.type === 'context.appended' && seen.push({ off: op.off, text: op.text }));
    assert.deepEqual(res, { ok: true });
    assert.equal(row.corrupt, null);
    assert.equal(row.events, texts.length + 2);
    assert.deepEqual(seen.map((s) => s.text), texts);
    // The context entries are the last lines before the torn one: their offsets are those lines' bytes.
    assert.deepEqual(seen.map((s) => s.off), starts.slice(-1 - texts.length, -1));
    assert.equal(row.log_offset, starts[starts.length - 1], 'projected up to the torn line');
    for (const s of seen) assert.equal(JSON.parse(bytes.subarray(s.off, bytes.indexOf(10, s.off)).toString('utf8')).payload.text, s.text);
  }
});

test('a log replaced by a different history: one conflict, the log\'s truth listed, the folder byte-identical', () => {
  process.env.BATON_INDEX_SWEEP_MS = '0'; // the replacement announces nothing: the stat sweep finds it
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const id = makeSession(home, 'original title', ws, { id: 'replaced-1', texts: ['a', 'b', 'c'] });
  const other = tmpDir();
  makeSession(other, 'rewritten history', ws, { id: 'replaced-1', texts: ['x', 'y', 'z', 'w', 'v', 'u'] });
  assert.equal(listSessions(home, { cwd: ws }).sessions[0].title, 'original title');
  fs.copyFileSync(join(other, 'sessions', id, 'events.jsonl'), join(home, 'sessions', id, 'events.jsonl'));
  const dir = join(home, 'sessions', id);
  const before = treeHash(dir);
  const listed = listSessions(home, { cwd: ws }).sessions;
  assert.equal(listed.length, 1);
  assert.equal(listed[0].title, 'rewritten history');
  assert.equal(listed[0].events, 1 + 1 + 6);
  assert.ok(listed[0].conflict, 'the conflict is shown in the listing');
  assert.match(listed[0].conflict.detail, /no longer/);
  // Looking again records nothing more: the index now agrees with the log.
  listSessions(home, { cwd: ws });
  const health = indexHealth(home);
  assert.equal(health.conflicts.length, 1);
  assert.equal(health.conflicts[0].session, id);
  assert.match(indexConflictFor(home, id) ?? '', /projection_conflict/);
  assert.equal(indexConflictFor(home, 'no-such-session'), null);
  assert.equal(treeHash(dir), before, 'the session folder was not written');
  // The binary shows it too.
  const r = baton(['search', '--all', '--json', 'rewritten'], { home });
  assert.equal(r.json.hits.length, 1);
  assert.equal(baton(['search', '--all', '--json', 'original'], { home }).json.hits.length, 0);
});

test('a deleted session folder disappears from the listing', () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const a = makeSession(home, 'keep', ws);
  const b = makeSession(home, 'drop', ws);
  assert.equal(listSessions(home, { cwd: ws }).sessions.length, 2);
  fs.rmSync(join(home, 'sessions', b), { recursive: true });
  assert.deepEqual(
    listSessions(home, { cwd: ws }).sessions.map((s) => s.id),
    [a],
  );
});

test('a shorter log than what was indexed is a conflict (announced by the feed)', () => {
  process.env.BATON_INDEX_SWEEP_MS = '3600000';
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const id = makeSession(home, 'shrinks', ws, { texts: ['1', '2', '3'] });
  listSessions(home, { cwd: ws });
  const log = join(home, 'sessions', id, 'events.jsonl');
  const lines = fs.readFileSync(log, 'utf8').split('\n');
  fs.writeFileSync(log, `${lines.slice(0, 2).join('\n')}\n`);
  fs.appendFileSync(join(home, 'index.feed'), `${id}\n`);
  const s = listSessions(home, { cwd: ws }).sessions[0];
  assert.equal(s.events, 2);
  assert.match(s.conflict?.detail ?? '', /shorter/);
});

test('a long change feed is rotated, and a feed that starts over is read from its start', () => {
  process.env.BATON_INDEX_SWEEP_MS = '3600000';
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const id = makeSession(home, 'feed', ws);
  assert.equal(listSessions(home, { cwd: ws }).sessions[0].events, 2);
  const feed = join(home, 'index.feed');
  fs.appendFileSync(feed, 'no-such-session\n'.repeat(80_000)); // > 1 MiB of hints
  append(home, id, 'context.appended', { text: 'after the long feed' });
  assert.equal(listSessions(home, { cwd: ws }).sessions[0].events, 3);
  assert.ok(fs.existsSync(join(home, 'index.feed.old')), 'rotated');
  append(home, id, 'context.appended', { text: 'into a new feed' });
  assert.equal(listSessions(home, { cwd: ws }).sessions[0].events, 4);
  fs.truncateSync(join(home, 'index.feed'), 0); // a writer started the feed over
  append(home, id, 'context.appended', { text: 'after the truncation' });
  assert.equal(listSessions(home, { cwd: ws }).sessions[0].events, 5);
});
