// The session verbs a user of such a tool expects (issue 29, "missing"): resume --last,
// rename, delete. Each refusal leaves the disk as it was.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';

const A = { BATON_INSTANCE: 'cli@a@host' };
const B = { BATON_INSTANCE: 'cli@b@host' };

test('session resume --last takes the newest session of this directory that is not archived', () => {
  const home = tmpDir();
  const here = tmpDir();
  const elsewhere = tmpDir();
  const none = baton(['session', 'resume', '--last', '--json'], { home, cwd: here, env: A });
  assert.equal(none.code, 2);
  assert.equal(none.json.error.code, 'WS001');
  assert.match(none.json.error.message, /baton session new TITLE/);
  for (const [id, cwd] of [
    ['older-here', here],
    ['newer-here', here],
    ['newest-elsewhere', elsewhere],
  ]) {
    assert.equal(baton(['session', 'new', id, '--id', id, '--cwd', cwd], { home, env: A }).code, 0);
    assert.equal(baton(['session', 'release', id], { home, env: A }).code, 0);
  }
  const r = baton(['session', 'resume', '--last', '--json'], { home, cwd: here, env: A });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.id, 'newer-here');
  const both = baton(['session', 'resume', 'older-here', '--last'], { home, cwd: here, env: A });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /^baton: USAGE give exactly one of a session id or --last/);
});

test('session rename writes one session.updated title event, needs the lease, and refuses an empty title', () => {
  const home = tmpDir();
  assert.equal(baton(['session', 'new', 'Old name', '--id', 'ren'], { home, env: A }).code, 0);
  const before = treeHash(home);
  const empty = baton(['session', 'rename', 'ren', '  ', '--json'], { home, env: A });
  assert.equal(empty.json.error.code, 'USAGE');
  const other = baton(['session', 'rename', 'ren', 'Not yours', '--json'], { home, env: B });
  assert.equal(other.code, 2);
  assert.equal(other.json.error.code, 'WS101');
  assert.equal(treeHash(home), before);
  const r = baton(['session', 'rename', 'ren', 'New name', '--json'], { home, env: A });
  assert.equal(r.code, 0, r.stderr);
  const last = baton(['session', 'log', 'ren', '--tail', '1', '--json'], { home }).json.events[0];
  assert.equal(last.type, 'session.updated');
  assert.deepEqual(last.payload, { title: 'New name' });
  assert.equal(JSON.parse(fs.readFileSync(join(home, 'sessions', 'ren', 'manifest.json'), 'utf8')).title, 'New name');
  assert.equal(baton(['session', 'list', '--all', '--json'], { home }).json.sessions[0].title, 'New name');
});

test('session delete: --yes off a terminal, refused while another holds the lease, gone from the list and the search', () => {
  const home = tmpDir();
  assert.equal(baton(['session', 'new', 'Doomed zanzibar', '--id', 'doomed'], { home, env: A }).code, 0);
  assert.equal(baton(['session', 'list', '--all', '--json'], { home }).json.sessions.length, 1, 'indexed');
  const before = treeHash(home);
  const ask = baton(['session', 'delete', 'doomed'], { home, env: A });
  assert.equal(ask.code, 2);
  assert.match(ask.stderr, /confirm with --yes/);
  const held = baton(['session', 'delete', 'doomed', '--yes', '--json'], { home, env: B });
  assert.equal(held.code, 2);
  assert.equal(held.json.error.code, 'WS101');
  assert.equal(treeHash(home), before, 'refusals remove nothing');
  const r = baton(['session', 'delete', 'doomed', '--yes', '--json'], { home, env: A });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json, { ok: true, id: 'doomed', deleted: true });
  assert.equal(fs.existsSync(join(home, 'sessions', 'doomed')), false);
  assert.deepEqual(baton(['session', 'list', '--all', '--json'], { home }).json.sessions, []);
  assert.deepEqual(baton(['search', 'zanzibar', '--all', '--json'], { home }).json.hits, []);
  assert.equal(baton(['session', 'delete', 'doomed', '--yes', '--json'], { home, env: A }).json.error.code, 'WS001');
});
