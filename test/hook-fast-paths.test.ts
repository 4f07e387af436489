// The hook path's replacements for Node conveniences that cost a hook process time to load
// (docs/adr/0018): each must give exactly what the convenience gives.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hostName, nodeOs } from '../src/core/host.ts';
import { isoMillis, isoSeconds, touchedAfter } from '../src/core/time.ts';
import { decodeUtf8Strict } from '../src/core/utf8.ts';
import { readFdBytes, readFileBytes, readFileOrNull, writeFileAtomic } from '../src/store/fsutil.ts';

test('hostName is os.hostname(), and nodeOs is node:os', () => {
  assert.equal(hostName(), hostname());
  assert.equal(nodeOs().hostname, hostname);
});

test('isoMillis and isoSeconds give toISOString, and its RangeError for an invalid date', () => {
  const edges = [0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_800_000, 4_107_542_400_000, 253_402_300_799_999, 253_402_300_800_000, -1, -62_198_755_200_000];
  let seed = 7;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  const times = [...edges, ...Array.from({ length: 20_000 }, () => Math.floor(rnd() * 253_402_300_800_000))];
  for (const t of times) {
    const d = new Date(t);
    assert.equal(isoMillis(d), d.toISOString(), String(t));
    assert.equal(isoSeconds(d), `${d.toISOString().slice(0, 19)}Z`, String(t));
  }
  assert.throws(() => isoMillis(new Date(Number.NaN)), RangeError);
});

test('decodeUtf8Strict decodes as TextDecoder(utf-8, fatal) does, byte order mark and errors included', () => {
  const fatal = new TextDecoder('utf-8', { fatal: true });
  const samples = [
    [],
    [0x7b, 0x7d],
    [0xef, 0xbb, 0xbf, 0x7b, 0x7d], // BOM then {}
    [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], // two: only the first is dropped
    [0xc3, 0xa9],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xff],
    [0xc0, 0xaf], // overlong
    [0xed, 0xa0, 0x80], // a surrogate
    [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
    [0xe2, 0x82], // cut short
  ];
  let seed = 11;
  for (let i = 0; i < 2000; i++) {
    const n = i % 9;
    const bytes: number[] = [];
    for (let k = 0; k < n; k++) {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      bytes.push(seed >>> 24);
    }
    samples.push(bytes);
  }
  for (const s of samples) {
    const buf = Buffer.from(s);
    let want: string | Error;
    try {
      want = fatal.decode(buf);
    } catch (e) {
      want = e as Error;
    }
    if (typeof want === 'string') assert.equal(decodeUtf8Strict(buf), want, JSON.stringify(s));
    else assert.throws(() => decodeUtf8Strict(buf), { name: 'TypeError', message: want.message }, JSON.stringify(s));
  }
});

test('readFileBytes and readFdBytes read what readFileSync reads, with its errors', () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'baton-fast-'));
  try {
    for (const size of [0, 1, 4095, 4096, 8192, 70_000]) {
      const p = join(dir, `f${size}`);
      const data = Buffer.alloc(size, size % 251);
      fs.writeFileSync(p, data);
      assert.deepEqual(readFileBytes(p), fs.readFileSync(p));
      assert.deepEqual(readFileOrNull(p), data);
    }
    // A file whose size fstat does not know (procfs): read to the end.
    assert.deepEqual(readFileBytes('/proc/self/status').subarray(0, 5).toString(), 'Name:');
    assert.equal(readFileOrNull(join(dir, 'missing')), null);
    assert.throws(() => readFileBytes(join(dir, 'missing')), { code: 'ENOENT' });
    assert.throws(() => readFileBytes(dir), { code: 'EISDIR' });
    const fd = fs.openSync(join(dir, 'f4096'), 'r');
    try {
      fs.readSync(fd, Buffer.alloc(10), 0, 10, null); // the position moved: readFdBytes reads from 0 all the same
      assert.equal(readFdBytes(fd).length, 4096);
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('writeFileAtomic reads back through its own descriptor: verify gets the bytes written; a refusal leaves the old file and no temp', () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'baton-fast-'));
  try {
    const p = join(dir, 'state.json');
    let seen: Buffer | undefined;
    writeFileAtomic(p, '{"a":1}\n', { durable: true, verify: (read) => (seen = read) });
    assert.equal(seen?.toString(), '{"a":1}\n');
    assert.equal(fs.readFileSync(p, 'utf8'), '{"a":1}\n');
    assert.throws(
      () =>
        writeFileAtomic(p, '{"a":2}\n', {
          durable: true,
          verify: () => {
            throw new Error('no');
          },
        }),
      /no/,
    );
    assert.equal(fs.readFileSync(p, 'utf8'), '{"a":1}\n');
    assert.deepEqual(fs.readdirSync(dir), ['state.json']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('touchedAfter: an event counts at its ts, one recorded after the fact at its `at`, never past its ts and never moving back', () => {
  const ts = '2026-12-05T10:00:00.000Z';
  assert.equal(touchedAfter('', { ts, payload: {} }), ts);
  assert.equal(touchedAfter('2026-12-06T00:00:00.000Z', { ts, payload: {} }), ts, 'an event without `at` is the last touch, as before');
  assert.equal(touchedAfter('', { ts, payload: { at: '2026-12-01T08:00:00.000Z' } }), '2026-12-01T08:00:00.000Z');
  assert.equal(touchedAfter('2026-12-02T00:00:00.000Z', { ts, payload: { at: '2026-12-01T08:00:00.000Z' } }), '2026-12-02T00:00:00.000Z', 'an earlier `at` does not move it back');
  assert.equal(touchedAfter('', { ts, payload: { at: '2027-01-01T00:00:00.000Z' } }), ts, 'an `at` past its ts counts at its ts');
  for (const bad of ['2026-12-01', '2026-12-01T08:00:00Z', 'yesterday, 24 characters', 42, null]) {
    assert.equal(touchedAfter('', { ts, payload: { at: bad } }), ts, String(bad));
  }
  assert.equal(touchedAfter('', { ts, payload: null }), ts);
});
