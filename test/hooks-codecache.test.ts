// The hook bundle's V8 code cache (src/hooks/codecache.ts, docs/adr/0006): kept under the
// store's home (0700 folder, 0600 file), used when V8 accepts it, replaced when rejected or
// corrupt, never followed through a symlink, never written for a refused or BATON_VERIFY run,
// and never a reason for a hook to fail.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cacheDirOf, cacheNameOf, readCodeCache, runWithCodeCache, writeCodeCache } from '../src/hooks/codecache.ts';
import { ROOT, agentWorld, baton, tmpDir, treeHash } from './helpers.ts';

const require = createRequire(import.meta.url);

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});
function root(): string {
  const r = tmpDir('baton-codecache-');
  roots.push(r);
  return r;
}

const SID = 'c0dec0de-1111-4222-8333-444455556666';
const start = (cwd: string): string => JSON.stringify({ session_id: SID, cwd, hook_event_name: 'SessionStart', source: 'startup' });
const prompt = (cwd: string): string => JSON.stringify({ session_id: SID, cwd, hook_event_name: 'UserPromptSubmit', prompt: 'add a retry to the upload client' });

function cacheFiles(home: string): string[] {
  try {
    return fs.readdirSync(cacheDirOf(home)).filter((n) => n.endsWith('.v8cache'));
  } catch {
    return [];
  }
}

function hookOk(home: string, input: string, env: Record<string, string | undefined> = {}): string {
  const r = baton(['hook', 'claude'], { home, input, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /TASK_POINTER_V2/);
  return r.stdout;
}

test('an event writes the cache under the store home (0700 folder, one 0600 file for this Node); an event of a kind it covers uses it unchanged, a new kind extends it once', () => {
  const r = root();
  const home = join(r, 'store');
  assert.deepEqual(cacheFiles(home), []);
  hookOk(home, start(r));
  const files = cacheFiles(home);
  assert.equal(files.length, 1);
  assert.ok(files[0].includes(`--${process.version}-${process.arch}.`), files[0]);
  assert.equal(fs.statSync(cacheDirOf(home)).mode & 0o777, 0o700);
  const p = join(cacheDirOf(home), files[0]);
  const before = fs.statSync(p, { bigint: true });
  assert.equal(Number(before.mode) & 0o777, 0o600);
  assert.ok(before.size > 1000n);
  assert.equal(readCodeCache(cacheDirOf(home), files[0])?.covered, 1, 'covers start');
  // V8 accepted it: the next start neither rewrites nor replaces it.
  hookOk(home, start(r));
  const again = fs.statSync(p, { bigint: true });
  assert.equal(again.ino, before.ino);
  assert.equal(again.mtimeNs, before.mtimeNs);
  // The first prompt adds the prompt's functions (a new file by rename); the next leaves it.
  hookOk(home, prompt(r));
  const extended = fs.statSync(p, { bigint: true });
  assert.notEqual(extended.ino, before.ino);
  assert.equal(readCodeCache(cacheDirOf(home), files[0])?.covered, 1 | 2, 'covers start and prompt');
  hookOk(home, prompt(r));
  hookOk(home, start(r));
  assert.equal(fs.statSync(p, { bigint: true }).ino, extended.ino);
  assert.deepEqual(fs.readdirSync(cacheDirOf(home)), files, 'no temp file left behind');
});

test("each agent's hook bundle keeps its own cache: two agents in one home keep two, neither sweeps the other's; a name baton does not know runs dist/hook.cjs (docs/adr/0092)", () => {
  const r = root();
  const home = join(r, 'store');
  hookOk(home, start(r));
  // What an earlier baton kept for dist/hook.cjs: swept by the next agent's cache written.
  fs.writeFileSync(join(cacheDirOf(home), `hook-${'a'.repeat(16)}-1-1--${process.version}-${process.arch}.v8cache`), 'old', { mode: 0o600 });
  const qwen = baton(['hook', 'qwen'], { home, input: start(r) });
  assert.equal(qwen.code, 0, qwen.stderr);
  assert.match(qwen.stdout, /TASK_POINTER_V2/);
  const names = cacheFiles(home).sort();
  assert.deepEqual(
    names.map((n) => n.slice(0, n.indexOf('-'))),
    ['hook.claude', 'hook.qwen'],
  );
  const inos = names.map((n) => fs.statSync(join(cacheDirOf(home), n)).ino);
  hookOk(home, prompt(r));
  const after = cacheFiles(home).sort();
  assert.deepEqual(after, names, 'the prompt extended claude\'s cache (a rename) and left qwen\'s');
  assert.equal(fs.statSync(join(cacheDirOf(home), names[1])).ino, inos[1]);
  const unknown = baton(['hook', 'nosuch'], { home, input: start(r) });
  assert.equal(unknown.code, 0);
  assert.match(unknown.stderr, /USAGE unknown provider "nosuch" \(known: claude, codex, gemini, qwen, copilot, droid, opencode, kilo, pi\)/);
  assert.deepEqual(cacheFiles(home).sort(), names, 'a refused event writes no cache');
});

test('a corrupt or truncated cache is ignored and replaced; the hook answers as without one', () => {
  const r = root();
  const home = join(r, 'store');
  hookOk(home, start(r));
  const [name] = cacheFiles(home);
  const p = join(cacheDirOf(home), name);
  const good = fs.readFileSync(p);
  // Garbage; the file cut in half; a byte flipped in one of the two copies of V8's bytes under
  // a good header (a rotten sector: V8 itself does not check its bytes and would abort).
  const n = good.readUInt32LE(12);
  assert.equal(good.length, 16 + 2 * n);
  const rotten = Buffer.from(good);
  rotten[16 + n + 100] ^= 0x01;
  for (const bad of [Buffer.alloc(good.length, 0x5a), good.subarray(0, good.length >> 1), rotten]) {
    fs.writeFileSync(p, bad, { mode: 0o600 });
    hookOk(home, start(r));
    assert.notDeepEqual(fs.readFileSync(p), bad, 'the bad cache was replaced');
    // ... by one V8 accepts: the next event of the same kind leaves it as it is.
    const ino = fs.statSync(p).ino;
    hookOk(home, start(r));
    assert.equal(fs.statSync(p).ino, ino);
  }
});

test('a symlinked cache folder or cache file is never followed: nothing is read or written outside the store', () => {
  const r = root();
  const home = join(r, 'store');
  const outside = join(r, 'outside');
  fs.mkdirSync(outside, { mode: 0o700 });
  hookOk(home, start(r));
  const [name] = cacheFiles(home);
  const valid = fs.readFileSync(join(cacheDirOf(home), name));
  // The folder a symlink to a folder holding a valid cache of the same name.
  fs.writeFileSync(join(outside, name), valid, { mode: 0o600 });
  fs.rmSync(cacheDirOf(home), { recursive: true });
  fs.symlinkSync(outside, cacheDirOf(home));
  const outsideHash = treeHash(outside);
  hookOk(home, prompt(r));
  assert.ok(fs.lstatSync(cacheDirOf(home)).isSymbolicLink());
  assert.equal(treeHash(outside), outsideHash);
  // The file a symlink: replaced by a real file (rename replaces the link), its target untouched.
  fs.unlinkSync(cacheDirOf(home));
  fs.mkdirSync(cacheDirOf(home), { mode: 0o700 });
  const target = join(outside, 'target');
  fs.writeFileSync(target, 'not a cache', { mode: 0o600 });
  fs.symlinkSync(target, join(cacheDirOf(home), name));
  hookOk(home, prompt(r));
  assert.equal(fs.readFileSync(target, 'utf8'), 'not a cache');
  assert.ok(fs.lstatSync(join(cacheDirOf(home), name)).isFile());
  assert.deepEqual(fs.readdirSync(outside).sort(), [name, 'target']);
});

test('a refused payload and a BATON_VERIFY=1 run write no cache: the store is unchanged', () => {
  const r = root();
  const home = join(r, 'store');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(join(home, '.baton-home'), '', { mode: 0o600 }); // a store baton made: the cache is kept only there
  const h0 = treeHash(home);
  const bad = baton(['hook', 'claude'], { home, input: '{not json' });
  assert.equal(bad.code, 0);
  assert.match(bad.stderr, /HK001/);
  assert.equal(treeHash(home), h0);
  const verify = baton(['hook', 'claude'], { home, input: start(r), env: { BATON_VERIFY: '1' } });
  assert.equal(verify.code, 0, verify.stderr);
  assert.match(verify.stderr, /baton_verify/);
  assert.equal(treeHash(home), h0);
  assert.deepEqual(fs.readdirSync(home), ['.baton-home']);
});

test('a cache folder that cannot be made (a file in its place) does not break the hook', () => {
  const r = root();
  const home = join(r, 'store');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(join(home, '.baton-home'), '', { mode: 0o600 }); // a store baton made: the cache is kept only there
  fs.writeFileSync(cacheDirOf(home), 'in the way', { mode: 0o600 });
  hookOk(home, start(r));
  hookOk(home, prompt(r));
  assert.equal(fs.readFileSync(cacheDirOf(home), 'utf8'), 'in the way');
});

test('runWithCodeCache: absent, then used; a cache of another source is rejected by name, and garbage by V8', () => {
  const r = root();
  const home = join(r, 'store');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(join(home, '.baton-home'), '', { mode: 0o600 }); // a store baton made: the cache is kept only there
  const file = join(r, 'mod.cjs');
  fs.writeFileSync(file, 'exports.sum = [1, 2, 3].reduce((a, b) => a + b, 0); exports.dir = __dirname;\n');
  const first = runWithCodeCache<{ sum: number; dir: string }>(file, 'a'.repeat(64), home, require);
  assert.equal(first.cache, 'absent');
  assert.deepEqual(first.exports, { sum: 6, dir: r });
  assert.equal(first.save(1), true);
  const second = runWithCodeCache<{ sum: number }>(file, 'a'.repeat(64), home, require);
  assert.equal(second.cache, 'used');
  assert.equal(second.exports.sum, 6);
  assert.equal(second.save(1), false, 'a used cache that covers the kind is not rewritten');
  assert.equal(second.save(0), false, 'nor for an unknown kind');
  // Another build hash: another name, so the old cache is not even read; saving it removes the old one.
  const other = runWithCodeCache(file, 'b'.repeat(64), home, require);
  assert.equal(other.cache, 'absent');
  assert.equal(other.save(1), true);
  assert.equal(cacheFiles(home).length, 1);
  assert.ok(cacheFiles(home)[0].startsWith(`hook-${'b'.repeat(16)}-`));
  // Garbage under the right name: V8 rejects it, the module still runs. (A new source: V8
  // would serve one it compiled earlier in this process from memory, without the cache.)
  fs.writeFileSync(file, 'exports.sum = [4, 5].reduce((a, b) => a + b, 0);\n');
  const st = fs.statSync(file);
  const name = cacheNameOf('b'.repeat(64), st.size, st.mtimeMs);
  assert.equal(writeCodeCache(cacheDirOf(home), name, () => ({ data: Buffer.alloc(4096, 7), covered: 1 })), true);
  assert.equal(readCodeCache(cacheDirOf(home), name)?.data.length, 4096);
  const rejected = runWithCodeCache<{ sum: number }>(file, 'b'.repeat(64), home, require);
  assert.equal(rejected.cache, 'rejected');
  assert.equal(rejected.exports.sum, 9);
  assert.equal(rejected.save(1), true, 'a rejected cache is replaced');
  assert.equal(readCodeCache(cacheDirOf(home), name)?.covered, 1, 'a rejected cache covers nothing of before');
});

test('readCodeCache keeps one copy of the bytes and compares the second through the scratch buffer a piece at a time: a byte changed anywhere in it, a header that disagrees with the size, or a half byte refuse the cache', () => {
  const r = root();
  const dir = join(r, 'cache');
  fs.writeFileSync(join(r, '.baton-home'), '', { mode: 0o600 });
  const data = Buffer.alloc(200_003);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7919) & 0xff;
  assert.equal(writeCodeCache(dir, 'hook-z--v.v8cache', () => ({ data, covered: 3 })), true);
  const p = join(dir, 'hook-z--v.v8cache');
  const good = fs.readFileSync(p);
  assert.equal(good.length, 16 + 2 * data.length);
  // Without a scratch, with one too small to use, with one of a few pieces, with one of many.
  const scratches = [undefined, Buffer.alloc(100), Buffer.alloc(150_000, 0xee), Buffer.alloc(16_384, 0x11)];
  for (const scratch of scratches) {
    const read = readCodeCache(dir, 'hook-z--v.v8cache', scratch);
    assert.equal(read?.covered, 3);
    assert.ok(read?.data.equals(data), 'the bytes read are the first copy');
  }
  // A byte changed in the second copy: at its start, on a piece's edge, in the middle, at the end.
  for (const at of [0, 16_383, 16_384, 100_000, 149_999, 150_000, data.length - 1]) {
    const bad = Buffer.from(good);
    bad[16 + data.length + at] ^= 0x20;
    fs.writeFileSync(p, bad);
    for (const scratch of scratches) assert.equal(readCodeCache(dir, 'hook-z--v.v8cache', scratch), undefined, `byte ${at}, scratch ${scratch?.length}`);
  }
  // A header whose length is not the file's, and a file of a half byte more.
  const header = Buffer.from(good);
  header.writeUInt32LE(data.length - 1, 12);
  fs.writeFileSync(p, header);
  assert.equal(readCodeCache(dir, 'hook-z--v.v8cache'), undefined);
  fs.writeFileSync(p, Buffer.concat([good, Buffer.from([0])]));
  assert.equal(readCodeCache(dir, 'hook-z--v.v8cache'), undefined);
  fs.writeFileSync(p, good);
  assert.ok(readCodeCache(dir, 'hook-z--v.v8cache')?.data.equals(data));
});

test('a cache folder writable by others is not trusted', () => {
  const r = root();
  const dir = join(r, 'cache');
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.writeFileSync(join(r, '.baton-home'), '', { mode: 0o600 });
  assert.equal(writeCodeCache(dir, 'hook-x--v.v8cache', () => ({ data: Buffer.from('data'), covered: 2 })), true);
  assert.deepEqual(readCodeCache(dir, 'hook-x--v.v8cache'), { data: Buffer.from('data'), covered: 2 });
  fs.chmodSync(dir, 0o777);
  assert.equal(readCodeCache(dir, 'hook-x--v.v8cache'), undefined);
  let made = false;
  const make = () => {
    made = true;
    return { data: Buffer.from('data'), covered: 2 };
  };
  assert.equal(writeCodeCache(dir, 'hook-y--v.v8cache', make), false);
  assert.equal(made, false, 'no cache is serialized for a folder it cannot go to');
});

test("the capture bundle's cache is made by a capture that went on from its cursor, not by a transcript's first capture (docs/adr/0074)", () => {
  const w = agentWorld();
  roots.push(w.root);
  const session = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';
  const dir = join(w.home, '.claude', 'projects', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${session}.jsonl`);
  const lines = fs.readFileSync(join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl'), 'utf8').split(/(?<=\n)/);
  const half = Math.floor(lines.length / 2);
  fs.writeFileSync(transcript, lines.slice(0, half).join(''));
  const stop = JSON.stringify({ session_id: session, transcript_path: transcript, cwd: '/home/u/proj', hook_event_name: 'Stop', stop_hook_active: false });
  const captureCaches = (): string[] => cacheFiles(w.store).filter((n) => n.startsWith('capture-'));
  const items = (): number => fs.readFileSync(join(w.store, 'sessions', session, 'events.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"transcript.item"')).length;
  assert.equal(baton(['hook', 'claude'], { env: w.env, input: stop }).code, 0);
  const first = items();
  assert.ok(first > 0, 'the first capture appended items');
  assert.deepEqual(captureCaches(), [], 'no capture cache from the first capture');
  assert.ok(cacheFiles(w.store).some((n) => n.startsWith('hook.claude-')), "the hook bundle's own cache (Claude Code's bundle: docs/adr/0092) is written as before");
  fs.appendFileSync(transcript, lines.slice(half).join(''));
  assert.equal(baton(['hook', 'claude'], { env: w.env, input: stop }).code, 0);
  assert.ok(items() > first, 'the second capture went on from the cursor');
  assert.equal(captureCaches().length, 1, 'the capture that found its cursor wrote the cache');
});
