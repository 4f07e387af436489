// The one stderr line a hook's aspect prints when it fails (src/hooks/dispatch.ts aspectLine):
// a filesystem error the store did not code itself (a short write on a full disk) says the
// baton code the CLI would (WS206), not the bare errno.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatonError } from '../src/core/errors.ts';
import { aspectLine } from '../src/hooks/dispatch.ts';

test('a short write on a full disk reads WS206; a coded error keeps its code; anything else its errno or INTERNAL', () => {
  const short = Object.assign(new Error('short write: 3681 of 4837 bytes'), { code: 'ENOSPC', path: '/s/items.v2.idx' });
  assert.match(aspectLine('transcript', short), /^baton: hook transcript: WS206 the disk is full \(\/s\/items\.v2\.idx\) \[ENOSPC\]$/);
  assert.equal(aspectLine('pointer', new BatonError('WS101', 'held elsewhere')), 'baton: hook pointer: WS101 held elsewhere');
  assert.equal(aspectLine('session', Object.assign(new Error('x'), { code: 'EBUSY' })), 'baton: hook session: EBUSY x');
  assert.equal(aspectLine('session', new Error('boom\nstack')), 'baton: hook session: INTERNAL boom');
});
