// The pure-JS SHA-256 agrees with node:crypto on every length around block borders and on large, multi-byte input.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { pureSha256Hex as sha256Hex } from '../src/core/hash.ts';

const ref = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

test('sha256Hex matches node:crypto for lengths 0..300 and known vectors', () => {
  assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  for (let n = 0; n <= 300; n++) {
    const b = randomBytes(n);
    assert.equal(sha256Hex(b), ref(b), `length ${n}`);
  }
});

test('sha256Hex hashes strings as UTF-8 and large inputs correctly', () => {
  const s = 'Laozi 老子 — 道可道，非常道 🀄 '.repeat(5000);
  assert.equal(sha256Hex(s), ref(s));
  const big = randomBytes(3 * 1024 * 1024 + 17);
  assert.equal(sha256Hex(big), ref(big));
});
