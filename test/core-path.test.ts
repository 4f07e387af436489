// src/core/path.ts: its join is path.join and its resolve path.resolve exactly, on the store's paths (the fast case) and on
// everything else (the fallback): empty, '.' and '..' segments, doubled and trailing slashes,
// relative folders, dotfiles, the root.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { join, resolve } from '../src/core/path.ts';

const segments = ['', '.', '..', 'a', '.a', '..a', 'a.', 'a..', '...', 'sessions', '.verified', '/', '//', 'a/', '/a', 'a/b', 'a/./b', 'a/../b', 'a//b', './a', '../a', 'a/.', 'a/..', '.baton-home', 'x y', 'caf\u00e9'];
const folders = ['/', '/home/u/.local/state/baton', '/tmp/store', '/tmp/store/', '/tmp/./store', '/tmp/../store', '/tmp//store', 'relative/store', './store', '../store', '.', '..', '', '/.hidden', '/a/.', '/a/..'];

test('join is path.join for every folder and one or two parts of every shape', () => {
  let fast = 0;
  for (const f of folders) {
    for (const a of segments) {
      assert.equal(join(f, a), path.join(f, a), JSON.stringify([f, a]));
      if (join(f, a) === `${f}/${a}`) fast++;
      for (const b of segments) assert.equal(join(f, a, b), path.join(f, a, b), JSON.stringify([f, a, b]));
    }
  }
  // The store's own joins take the fast case (the test would pass vacuously otherwise).
  assert.ok(fast > 50, `${fast} joins took the fast case`);
  assert.equal(join('/home/u/.local/state/baton', 'sessions'), '/home/u/.local/state/baton/sessions');
  assert.equal(join('/s/d4f8', '.shown', 'claude.x.json'), '/s/d4f8/.shown/claude.x.json');
});

test('resolve is path.resolve for every folder and every folder joined to a part, normal or not', () => {
  let same = 0;
  for (const f of folders) {
    assert.equal(resolve(f), path.resolve(f), JSON.stringify(f));
    for (const a of segments) {
      const p = `${f}/${a}`;
      assert.equal(resolve(p), path.resolve(p), JSON.stringify(p));
      if (resolve(p) === p) same++;
    }
  }
  assert.ok(same > 20, `${same} paths came back as they were`);
  assert.equal(resolve('/home/u/.local/state/baton'), '/home/u/.local/state/baton');
  assert.equal(resolve('/tmp/store/'), '/tmp/store');
  assert.equal(resolve('store'), path.join(process.cwd(), 'store'));
});
