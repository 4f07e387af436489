// The provider registry looks names up in a Map: a name that is a member of Object.prototype
// (`constructor`, `__proto__`, `toString` ...) is an unknown provider everywhere — the hook
// refuses it and writes nothing, the commands answer USAGE (exit 2).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isBatonError } from '../src/core/errors.ts';
import { PROVIDERS, PROVIDER_NAMES, findProvider, providerOf } from '../src/providers/index.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';

const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

test('findProvider and providerOf know the shipped adapters and nothing of Object.prototype', () => {
  assert.deepEqual(PROVIDER_NAMES, ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'droid', 'opencode', 'kilo', 'pi']);
  for (const n of PROVIDER_NAMES) {
    assert.equal(findProvider(n)?.name, n);
    assert.equal(PROVIDERS[n], findProvider(n));
  }
  assert.deepEqual(Object.keys(PROVIDERS), PROVIDER_NAMES);
  for (const n of PROTO_NAMES) {
    assert.equal(findProvider(n), undefined, n);
    assert.equal(PROVIDERS[n], undefined, n);
    assert.throws(
      () => providerOf(n),
      (e) => isBatonError(e) && e.code === 'USAGE',
    );
  }
});

test('baton hook <Object.prototype member> refuses with USAGE, exits 0 and leaves the store as it was', () => {
  const r = tmpDir('baton-registry-');
  roots.push(r);
  const home = join(r, 'store');
  fs.mkdirSync(home, { mode: 0o700 });
  const h0 = treeHash(home);
  const input = JSON.stringify({ session_id: 'proto-check', cwd: r, hook_event_name: 'SessionStart', source: 'startup' });
  for (const n of PROTO_NAMES) {
    const res = baton(['hook', n], { home, input });
    assert.equal(res.code, 0, n);
    assert.equal(res.stdout, '', n);
    assert.match(res.stderr, new RegExp(`USAGE unknown provider "${n}"`), n);
    assert.equal(treeHash(home), h0, n);
  }
  const inst = baton(['install', 'constructor'], { home, env: { HOME: r } });
  assert.equal(inst.code, 2);
  assert.match(inst.stderr, /USAGE unknown provider "constructor"/);
  assert.equal(treeHash(home), h0);
});
