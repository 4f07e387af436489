// The full command line through V8's code cache (src/cli/lean-boot.ts, docs/adr/0087): a command
// that appended to the store leaves `<home>/cache/cli-*.v8cache`; a command that writes nothing
// leaves none; a damaged cache is a plain compile, never a failure.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';

const cliCaches = (home: string): string[] => {
  try {
    return fs.readdirSync(join(home, 'cache')).filter((n) => n.startsWith('cli-'));
  } catch {
    return [];
  }
};

test('a command that appended leaves the cache (0600 in a 0700 folder); a read-only one writes none', (t) => {
  const home = tmpDir();
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const made = baton(['--json', 'session', 'new', 'cached'], { home });
  assert.equal(made.code, 0, made.stderr);
  const [name] = cliCaches(home);
  assert.ok(name, 'a cache after session new');
  assert.equal(fs.statSync(join(home, 'cache')).mode & 0o777, 0o700);
  assert.equal(fs.statSync(join(home, 'cache', name)).mode & 0o777, 0o600);
  fs.rmSync(join(home, 'cache'), { recursive: true });
  const before = treeHash(home);
  for (const args of [['session', 'show', made.json.id, '--json'], ['doctor', '--json'], ['--version']]) {
    const r = baton(args, { home });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  assert.deepEqual(cliCaches(home), []);
  assert.equal(treeHash(home), before);
});

test('a damaged cache: the command compiles as before and answers the same', (t) => {
  const home = tmpDir();
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const made = baton(['--json', 'session', 'new', 'damaged'], { home });
  assert.equal(made.code, 0, made.stderr);
  const clean = baton(['session', 'show', made.json.id, '--json'], { home });
  assert.equal(clean.code, 0, clean.stderr);
  const [name] = cliCaches(home);
  const file = join(home, 'cache', name);
  const bytes = fs.readFileSync(file);
  for (const at of [20, Math.floor(bytes.length / 2), bytes.length - 1]) {
    const bad = Buffer.from(bytes);
    bad[at] ^= 0xff;
    fs.writeFileSync(file, bad);
    const r = baton(['session', 'show', made.json.id, '--json'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, clean.json);
  }
  fs.writeFileSync(file, bytes.subarray(0, 100));
  const r = baton(['session', 'show', made.json.id, '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.json, clean.json);
});

test('pick after the global options still reaches the picker with a cache present (an ES module the cached bundle cannot import)', (t) => {
  const home = tmpDir();
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  assert.equal(baton(['--json', 'session', 'new', 'picked'], { home }).code, 0);
  assert.equal(cliCaches(home).length, 1);
  for (const args of [['--json', 'pick'], ['--quiet', 'pick'], [`--home=${home}`, 'pick'], ['--home', home, '--json', 'pick']]) {
    const r = baton(args, { home });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /pick needs a terminal/, args.join(' '));
  }
});
