// `session list` on the index (index.md): exact real-path workspace match by default,
// --cwd, --all, --state, --limit, newest first; the columns of index.md.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listSessions } from '../src/index/api.ts';
import { listCommand } from '../src/cli/session-list.ts';
import { FsStore } from '../src/store/store.ts';
import { tmpDir, treeHash } from './helpers.ts';
import { WRITER, append, makeSession } from './index-helpers.ts';

test('exact-cwd filtering: sessions from /a/b are not listed for /a or /a/bc', () => {
  const home = tmpDir();
  const root = tmpDir('baton-ws-');
  for (const d of ['a/b', 'a/bc']) fs.mkdirSync(join(root, d), { recursive: true });
  const ab = makeSession(home, 'in a/b', join(root, 'a/b'));
  const abc = makeSession(home, 'in a/bc', join(root, 'a/bc'));
  const a = makeSession(home, 'in a', join(root, 'a'));
  const ids = (cwd: string | null) => listSessions(home, { cwd }).sessions.map((s) => s.id);
  assert.deepEqual(ids(join(root, 'a/b')), [ab]);
  assert.deepEqual(ids(join(root, 'a')), [a]);
  assert.deepEqual(ids(join(root, 'a/bc')), [abc]);
  assert.deepEqual(ids(join(root, 'a/b/')).length, 0, 'the filter is the real path, already normalised by the caller');
  assert.equal(ids(null).length, 3);
  // The command resolves the directory to its real path (a symlink lists its target's sessions).
  fs.symlinkSync(join(root, 'a/b'), join(root, 'link'));
  const r = listCommand({ home }, { cwd: join(root, 'link') });
  assert.deepEqual((r.json as unknown as { sessions: { id: string }[] }).sessions.map((s) => s.id), [ab]);
});

test('newest first, --limit, --state, and the columns', () => {
  const home = tmpDir();
  const ws = tmpDir('baton-ws-');
  const s1 = makeSession(home, 'oldest', ws);
  const s2 = makeSession(home, 'middle', ws);
  const s3 = makeSession(home, 'newest', ws);
  append(home, s3, 'episode.opened', { episode: 'ep-9', provider: 'codex', provider_session_id: 'x', source: 'startup', context_file: 'c.md' }, 'hook:codex');
  append(home, s3, 'pointer.published', { revision: 3, generation: 'g-2', status: 'DIRTY' }, 'hook:codex');
  new FsStore(home).release(s2, WRITER);
  const pause = Date.now() + 5;
  while (Date.now() < pause) {} // timestamps have millisecond resolution
  append(home, s1, 'context.appended', { text: 'touched last' });
  const all = listSessions(home, { cwd: ws }).sessions;
  assert.deepEqual(
    all.map((s) => s.id),
    [s1, s2, s3],
    'the session touched last comes first',
  );
  assert.deepEqual(listSessions(home, { cwd: ws, limit: 1 }).sessions.map((s) => s.id), [s1]);
  assert.deepEqual(listSessions(home, { cwd: ws, state: 'suspended' }).sessions.map((s) => s.id), [s2]);
  assert.equal(listSessions(home, { cwd: ws, state: 'active' }).sessions.length, 2);
  const row = all.find((s) => s.id === s3);
  assert.ok(row);
  assert.equal(row.state, 'active');
  assert.equal(row.workspace, ws);
  assert.equal(row.events, 4);
  assert.equal(row.pointer_status, 'DIRTY');
  assert.equal(row.open_episode?.provider, 'codex');
  assert.equal(row.corrupt, null);
  for (const k of ['id', 'state', 'title', 'workspace', 'last_touched_at', 'events', 'pointer_status', 'open_episode']) assert.ok(k in row, k);
  const text = listCommand({ home }, { cwd: ws }).text as string[];
  assert.match(text[0], /ID\s+STATE\s+TITLE\s+WORKSPACE\s+TOUCHED\s+EVENTS\s+POINTER\s+EPISODE/);
  assert.equal(text.length, 4);
});

test('bad --state, --limit or --cwd with --all are refused before anything is touched', () => {
  const home = tmpDir();
  makeSession(home, 'x', tmpDir('baton-ws-'));
  const before = treeHash(home);
  assert.throws(() => listCommand({ home }, { state: 'sleeping' }), /USAGE|--state/);
  assert.throws(() => listCommand({ home }, { limit: '0' }), /--limit/);
  assert.throws(() => listCommand({ home }, { limit: '2x' }), /--limit/);
  assert.throws(() => listCommand({ home }, { all: true, cwd: '/tmp' }), /--all/);
  assert.equal(treeHash(home), before);
});

test('a store that does not exist lists nothing and creates nothing', () => {
  const home = join(tmpDir(), 'nothing-here');
  assert.deepEqual(listSessions(home, { cwd: null }).sessions, []);
  assert.equal(fs.existsSync(home), false);
});
