// On a full disk the session mutex says the disk is full (WS206) at once, instead of waiting
// on its own empty leftover until LOCK_TIMEOUT (issue 28.9). A small tmpfs (root only).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';

const canMount = process.getuid?.() === 0;

test('the prompt hook on a full disk reports WS206 (the disk is full), leaves no .mutex and changes nothing', { skip: !canMount && 'needs root to mount a tmpfs' }, (t) => {
  const mnt = tmpDir('baton-full-');
  assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', mnt]).status, 0, 'mount a tmpfs');
  t.after(() => spawnSync('umount', [mnt]));
  const home = join(mnt, 'home');
  assert.equal(baton(['session', 'new', 'Full disk', '--id', 'full'], { home }).code, 0);
  // Fill the filesystem to its last block.
  spawnSync('sh', ['-c', `dd if=/dev/zero of=${join(mnt, 'filler')} bs=4k 2>/dev/null; true`]);
  // The store's sessions are checked byte for byte (the hook's hints under hooks/ and cache/
  // are hints that may be left empty: src/hooks/lastrun.ts).
  const sessions = join(home, 'sessions');
  const before = treeHash(sessions);
  const payload = JSON.stringify({ session_id: 'full', hook_event_name: 'UserPromptSubmit', prompt: 'go on', cwd: mnt });
  const r = baton(['hook', 'claude'], { home, input: payload });
  assert.match(r.stderr, /WS206 .*the disk is full \[ENOSPC\]/);
  assert.doesNotMatch(r.stderr + r.stdout, /WS103|LOCK_TIMEOUT|mutex is busy/);
  assert.equal(fs.existsSync(join(home, 'sessions', 'full', '.mutex')), false, 'no empty .mutex left behind');
  assert.equal(treeHash(sessions), before, 'nothing written');
  // The CLI says the same.
  const cli = baton(['session', 'append', 'full', '--text', 'more', '--json'], { home });
  assert.equal(cli.code, 2);
  assert.equal(cli.json.error.code, 'WS206');
  assert.equal(treeHash(sessions), before);
});
