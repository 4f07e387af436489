// SHA-256 (src/core/hash.ts): the WebAssembly compression function and the JavaScript one (where
// WebAssembly is missing) agree with node:crypto on every length around block borders, across
// the module's 64 KiB input chunks, and on large, multi-byte input; the module's bytes are the
// ones scripts/gen-sha256-wasm.mjs assembles. The content digest (docs/adr/0088): the module and
// its JavaScript twin agree, and its values are pinned (items.v2.idx holds them).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { adoptNativeSha256, contentDigest, contentDigestJs, sha256Hex as hashHex, sha256, sha256Js, pureSha256Hex as sha256Hex } from '../src/core/hash.ts';
import { SHA256_WASM } from '../src/core/sha256-wasm.ts';
import { ROOT } from './helpers.ts';

const ref = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

test('sha256Hex matches node:crypto for lengths 0..300 and known vectors', () => {
  assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  for (let n = 0; n <= 300; n++) {
    const b = randomBytes(n);
    assert.equal(sha256Hex(b), ref(b), `length ${n}`);
    assert.equal(hex(sha256Js(b)), ref(b), `length ${n}, JavaScript`);
  }
});

test('sha256Hex hashes strings as UTF-8 and large inputs correctly', () => {
  const s = 'Laozi 老子 — 道可道，非常道 🀄 '.repeat(5000);
  assert.equal(sha256Hex(s), ref(s));
  const big = randomBytes(3 * 1024 * 1024 + 17);
  assert.equal(sha256Hex(big), ref(big));
  assert.equal(hex(sha256Js(big)), ref(big));
});

test('the WebAssembly path: lengths around its 64 KiB input chunks, and a hash leaves no state behind', () => {
  for (const n of [64511, 64512, 64513, 64512 * 2 - 1, 64512 * 2, 64512 * 2 + 55, 64512 * 2 + 56, 64512 * 2 + 64]) {
    const b = randomBytes(n);
    assert.equal(hex(sha256(b)), ref(b), `length ${n}`);
  }
  const a = randomBytes(1000);
  const first = hex(sha256(a));
  sha256(randomBytes(70_000));
  assert.equal(hex(sha256(a)), first);
});

test('a text is hashed in the module memory as UTF-8: every length around the blocks, the edge of its room, multi-byte characters, and what does not fit', () => {
  const chars = ['a', 'é', '道', '🀄'];
  for (let n = 0; n <= 300; n++) {
    const s = Array.from({ length: n }, (_, i) => chars[(i * 7 + n) % (n % 5 === 0 ? 1 : 4)]).join('');
    assert.equal(sha256Hex(s), ref(s), `length ${n}`);
  }
  // 65536 - 1024 - 128 = 64384 bytes fit in place; 21461 characters of 3 bytes or fewer need no measuring.
  for (const n of [21461, 21462, 64320, 64383, 64384, 64385, 64448, 70_000]) {
    for (const s of ['x'.repeat(n), `${'x'.repeat(n - 1)}é`, `${'é'.repeat(n >> 1)}`, `${'x'.repeat(n - 2)}🀄`]) assert.equal(sha256Hex(s), ref(s), `length ${s.length}`);
  }
  // Nothing of one text stays for the next.
  const first = sha256Hex('short');
  sha256Hex('y'.repeat(64384));
  assert.equal(sha256Hex('short'), first);
});

test('a text and more after it hash as the two joined, in place, past the room and from bytes', () => {
  for (const [a, b] of [
    ['', ''],
    ['abc', ''],
    ['', 'abc'],
    ['0123456789abcdef0123456789abcdef', '{"seq":1,"ts":"2026-12-04T00:00:00.000Z","type":"x.y"'],
    ['é'.repeat(33), '🀄'.repeat(40)],
    ['x'.repeat(30_000), 'y'.repeat(30_000)],
    ['x'.repeat(40_000), 'é'.repeat(20_000)],
  ]) {
    assert.equal(sha256Hex(a, b), ref(a + b), `${a.length} + ${b.length}`);
    assert.equal(sha256Hex(Buffer.from(a), b), ref(a + b), `bytes ${a.length} + ${b.length}`);
  }
});

test('the content digest: the module and its JavaScript twin agree around stripes, the room and past it; fixed vectors; one changed byte changes it', () => {
  const twin = (head: string, text: string): string => contentDigestJs(Buffer.from(head + text, 'utf8'));
  const chars = ['a', 'é', '道', '🀄'];
  for (let n = 0; n <= 200; n++) {
    const t = Array.from({ length: n }, (_, i) => chars[(i * 5 + n) % (n % 3 === 0 ? 1 : 4)]).join('');
    assert.equal(contentDigest('["user"]', t), twin('["user"]', t), `length ${n}`);
  }
  // The room is 64,512 bytes (2,016 stripes of 32); 21,504 characters need no measuring.
  for (const n of [21_504, 21_505, 64_480, 64_511, 64_512, 64_513, 64_544, 129_024, 129_025, 200_001]) {
    for (const t of ['x'.repeat(n), `${'x'.repeat(n - 1)}é`, 'é'.repeat(n >> 1), `${'x'.repeat(n - 2)}🀄`]) assert.equal(contentDigest('[]', t), twin('[]', t), `length ${t.length}`);
  }
  // items.v2.idx holds these digests: a change of the function must be a new file (docs/adr/0088).
  assert.equal(contentDigest('', ''), '37af3c4390c7c380ae0deaa4acdd1cc1');
  assert.equal(contentDigest('["user","message"]', 'hello 😀 world'), 'a6db669799f83ff4e8ab8e0c270c3a82');
  // Nothing of one digest stays for the next, and the head and the text are one input.
  const first = contentDigest('[1]', 'short');
  contentDigest('[]', 'y'.repeat(100_000));
  contentDigest('[]', 'y'.repeat(40_000));
  assert.equal(contentDigest('[1]', 'short'), first);
  assert.equal(contentDigest('[1]', 'ab'), contentDigest('[1]a', 'b'));
  const base = Buffer.from(randomBytes(300).toString('base64'));
  const seen = new Set([contentDigest('', base.toString())]);
  for (let i = 0; i < base.length; i++) {
    const b = Buffer.from(base);
    b[i] ^= 1;
    seen.add(contentDigest('', b.toString()));
  }
  seen.add(contentDigest('', `${base.toString()}\u0000`));
  assert.equal(seen.size, base.length + 2);
});

test('src/core/sha256-wasm.ts is what scripts/gen-sha256-wasm.mjs writes, and a valid module', async () => {
  const gen: { sha256WasmSource: () => string } = await import(pathToFileURL(join(ROOT, 'scripts/gen-sha256-wasm.mjs')).href);
  assert.equal(fs.readFileSync(join(ROOT, 'src/core/sha256-wasm.ts'), 'utf8'), gen.sha256WasmSource());
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(SHA256_WASM)));
  assert.deepEqual(Object.keys(exports).sort(), ['blocks', 'fin', 'memory', 'mix']);
});

// Last: it swaps the process's implementation for node:crypto's.
test('node:crypto adopted: a text and more after it hash as the two joined', () => {
  adoptNativeSha256(createHash);
  assert.equal(hashHex('abc', 'def'), ref('abcdef'));
  assert.equal(hashHex(Buffer.from('é'), '🀄'), ref('é🀄'));
  assert.equal(hashHex('abc'), ref('abc'));
});
