// SHA-256 in one place. The hook path uses its own: loading node:crypto costs a hook process
// ~5 ms, more than hashing everything a hook hashes (a chain line, a prompt, a pointer text).
// The compression function runs as a small WebAssembly module (src/core/sha256-wasm.ts, from
// scripts/gen-sha256-wasm.mjs): a process that lives for one event runs JavaScript in V8's
// interpreter and baseline tiers, where the same function in JavaScript costs ~5 M
// instructions per KB hashed, the module ~0.2 M to compile and run (docs/adr/0018). Where
// WebAssembly is missing (`--jitless`) the JavaScript function below runs instead. Processes
// that hash a lot (the CLI verifying or streaming a log, the index, the bench) install
// node:crypto's with adoptNativeSha256().
import { DIGEST, SHA256_WASM, SHA256_WASM_INPUT } from './sha256-wasm.ts';

const K = /* @__PURE__ */ new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const W = /* @__PURE__ */ new Uint32Array(64);

function compress(h: Uint32Array, data: Uint8Array, off: number): void {
  for (let i = 0; i < 16; i++) {
    const j = off + i * 4;
    W[i] = (data[j] << 24) | (data[j + 1] << 16) | (data[j + 2] << 8) | data[j + 3];
  }
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15];
    const b = W[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = h[0];
  let b = h[1];
  let c = h[2];
  let d = h[3];
  let e = h[4];
  let f = h[5];
  let g = h[6];
  let hh = h[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (hh + S1 + ch + K[i] + W[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0] + a) | 0;
  h[1] = (h[1] + b) | 0;
  h[2] = (h[2] + c) | 0;
  h[3] = (h[3] + d) | 0;
  h[4] = (h[4] + e) | 0;
  h[5] = (h[5] + f) | 0;
  h[6] = (h[6] + g) | 0;
  h[7] = (h[7] + hh) | 0;
}

/** The initial state. */
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

interface WasmSha256 {
  /** The module's memory (one 64 KiB page, never grown), as bytes, as words and as a Buffer (for UTF-8 and hex). */
  mem: Uint8Array;
  view: DataView;
  buf: Buffer;
  /** Runs the compression function over n 64-byte blocks at byte p, updating the state. */
  blocks: (p: number, n: number) => void;
  /** The content digest's: n 32-byte stripes at p into the lanes at 0 and 8; the lanes into the digest for `len` bytes. */
  mix: (p: number, n: number) => void;
  fin: (len: number) => void;
}

/** The instantiated module, null where WebAssembly is missing, undefined before first use. */
let wasm: WasmSha256 | null | undefined;

/**
 * Where the instance is shared by every copy of this module in one process (compiling and
 * instantiating the module costs a hook ~0.7 ms). The hook's capture bundle no longer holds a copy
 * (it takes this module from dist/hook.cjs: src/hooks/shared-modules.ts); the slot stays for any
 * bundle that does. The module is the same bytes in all (one build); its state lives in its
 * memory only for the span of one sha256 call (synchronous).
 */
const SHARED = Symbol.for('baton.sha256-wasm');

function wasmSha256(): WasmSha256 | null {
  if (wasm !== undefined) return wasm;
  const g = globalThis as Record<symbol, WasmSha256 | undefined>;
  if (g[SHARED]) return (wasm = g[SHARED]);
  try {
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(SHA256_WASM)));
    const memory = exports.memory as WebAssembly.Memory;
    wasm = {
      mem: new Uint8Array(memory.buffer),
      view: new DataView(memory.buffer),
      buf: Buffer.from(memory.buffer),
      blocks: exports.blocks as (p: number, n: number) => void,
      mix: exports.mix as (p: number, n: number) => void,
      fin: exports.fin as (len: number) => void,
    };
    g[SHARED] = wasm;
  } catch {
    wasm = null;
  }
  return wasm;
}

/** Input bytes copied into the module's memory per call: whole blocks filling the page after SHA256_WASM_INPUT. */
const WASM_CHUNK = 65536 - SHA256_WASM_INPUT;

export function sha256(input: Uint8Array): Uint8Array {
  const w = wasmSha256();
  return w ? sha256Wasm(w, input) : sha256Js(input);
}

function sha256Wasm(w: WasmSha256, input: Uint8Array): Uint8Array {
  const { mem, view } = w;
  for (let k = 0; k < 8; k++) view.setUint32(4 * k, IV[k], true);
  const len = input.length;
  const full = len - (len % 64);
  for (let off = 0; off < full; off += WASM_CHUNK) {
    const n = Math.min(WASM_CHUNK, full - off);
    mem.set(input.subarray(off, off + n), SHA256_WASM_INPUT);
    w.blocks(SHA256_WASM_INPUT, n / 64);
  }
  const rest = len - full;
  const end = rest < 56 ? 64 : 128;
  mem.fill(0, SHA256_WASM_INPUT, SHA256_WASM_INPUT + end);
  mem.set(input.subarray(full), SHA256_WASM_INPUT);
  mem[SHA256_WASM_INPUT + rest] = 0x80;
  view.setUint32(SHA256_WASM_INPUT + end - 8, Math.floor(len / 0x20000000), false);
  view.setUint32(SHA256_WASM_INPUT + end - 4, (len * 8) >>> 0, false);
  w.blocks(SHA256_WASM_INPUT, end / 64);
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let k = 0; k < 8; k++) outView.setUint32(4 * k, view.getUint32(4 * k, true), false);
  return out;
}

/** UTF-8 bytes a text may take in the module's memory to be hashed in place (its padding after it). */
const WASM_TEXT_ROOM = 65536 - SHA256_WASM_INPUT - 128;

/**
 * The hex digest of a text written straight into the module's memory as UTF-8, hashed there and
 * turned into hex natively; null when it does not fit (the caller copies it out in chunks).
 * A capture hashes ~45 texts (keys, item digests, chain lines, its cursor): each made a Buffer
 * of the text, copied it in, and built the hex from 32 strings — ~2 KB of young garbage a hash
 * besides the text's copy, ~1.5 MB a capture in all with the rest, two scavenges (docs/adr/0081).
 */
function sha256WasmText(w: WasmSha256, text: string, more: string): string | null {
  const { buf, view, mem } = w;
  // At most 3 bytes a UTF-16 unit: a short text fits without measuring it.
  const short = (text.length + more.length) * 3 <= WASM_TEXT_ROOM;
  const first = short ? utf8Into(buf, text, SHA256_WASM_INPUT) : Buffer.byteLength(text, 'utf8');
  const len = first + (short ? (more ? utf8Into(buf, more, SHA256_WASM_INPUT + first) : 0) : Buffer.byteLength(more, 'utf8'));
  if (len > WASM_TEXT_ROOM) return null;
  if (!short) {
    utf8Into(buf, text, SHA256_WASM_INPUT);
    if (more) utf8Into(buf, more, SHA256_WASM_INPUT + first);
  }
  for (let k = 0; k < 8; k++) view.setUint32(4 * k, IV[k], true);
  const full = len - (len % 64);
  if (full > 0) w.blocks(SHA256_WASM_INPUT, full / 64);
  const at = SHA256_WASM_INPUT + full;
  const rest = len - full;
  const end = rest < 56 ? 64 : 128;
  mem.fill(0, at + rest, at + end);
  mem[at + rest] = 0x80;
  view.setUint32(at + end - 8, Math.floor(len / 0x20000000), false);
  view.setUint32(at + end - 4, (len * 8) >>> 0, false);
  w.blocks(at, end / 64);
  // The state, big-endian, where the input was: one native hex encoding.
  for (let k = 0; k < 8; k++) view.setUint32(SHA256_WASM_INPUT + 4 * k, view.getUint32(4 * k, true), false);
  return (buf as FastBuffer).hexSlice?.(SHA256_WASM_INPUT, SHA256_WASM_INPUT + 32) ?? buf.toString('hex', SHA256_WASM_INPUT, SHA256_WASM_INPUT + 32);
}

/**
 * Buffer's own native methods behind write() and toString() (Node's, on every Buffer, not
 * documented): the documented ones check and normalise their arguments in JavaScript, which
 * the prompt hook (a few small hashes) paid as ~0.35 M instructions of first-use compiling.
 */
type FastBuffer = Buffer & { utf8Write?: (s: string, offset: number) => number; hexSlice?: (start: number, end: number) => string };
const utf8Into = (buf: Buffer, text: string, at: number): number => (buf as FastBuffer).utf8Write?.(text, at) ?? buf.write(text, at, 'utf8');

/** The same in JavaScript (where WebAssembly is missing). */
export function sha256Js(input: Uint8Array): Uint8Array {
  const h = new Uint32Array(IV);
  const len = input.length;
  const full = len - (len % 64);
  for (let off = 0; off < full; off += 64) compress(h, input, off);
  const rest = len - full;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(input.subarray(full));
  tail[rest] = 0x80;
  const bits = len * 8;
  const end = tail.length;
  tail[end - 4] = (bits >>> 24) & 0xff;
  tail[end - 3] = (bits >>> 16) & 0xff;
  tail[end - 2] = (bits >>> 8) & 0xff;
  tail[end - 1] = bits & 0xff;
  const hi = Math.floor(len / 0x20000000);
  tail[end - 8] = (hi >>> 24) & 0xff;
  tail[end - 7] = (hi >>> 16) & 0xff;
  tail[end - 6] = (hi >>> 8) & 0xff;
  tail[end - 5] = hi & 0xff;
  for (let off = 0; off < end; off += 64) compress(h, tail, off);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    out[i * 4] = h[i] >>> 24;
    out[i * 4 + 1] = (h[i] >>> 16) & 0xff;
    out[i * 4 + 2] = (h[i] >>> 8) & 0xff;
    out[i * 4 + 3] = h[i] & 0xff;
  }
  return out;
}

const HEX = /* @__PURE__ */ Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

type Hex = (data: string | Uint8Array, more?: string) => string;
let impl: Hex = pureSha256Hex;

/** The hex SHA-256 of `data`, followed by `more` when given (hashed as one text, without joining the two into one string first). */
export function sha256Hex(data: string | Uint8Array, more?: string): string {
  return impl(data, more);
}

/** Hands hashing to node:crypto (given by the caller, so this module never loads it). */
interface NativeHash {
  update(d: string | Uint8Array): NativeHash;
  digest(enc: 'hex'): string;
}

export function adoptNativeSha256(createHash: (alg: 'sha256') => NativeHash): void {
  impl = (data, more) => {
    const h = createHash('sha256').update(data);
    return (more === undefined ? h : h.update(more)).digest('hex');
  };
}

export function pureSha256Hex(data: string | Uint8Array, more?: string): string {
  if (typeof data === 'string') {
    const w = wasmSha256();
    const hex = w ? sha256WasmText(w, data, more ?? '') : null;
    if (hex !== null) return hex;
  }
  const bytes =
    typeof data === 'string' ? Buffer.from(more === undefined ? data : data + more, 'utf8') : more === undefined ? data : Buffer.concat([data, Buffer.from(more, 'utf8')]);
  const d = sha256(bytes);
  let s = '';
  for (let i = 0; i < 32; i++) s += HEX[d[i]];
  return s;
}

/**
 * The digest of a content, 32 hex characters: `head` then `text`, as UTF-8, through a 128-bit
 * non-cryptographic hash (two xxHash64-style lanes; docs/adr/0088). It tells two records of one
 * transcript item apart (items.v2.idx) at ~1/30 of SHA-256's cost in a short-lived process,
 * where the module runs in V8's baseline tier; nothing outside this machine's projections holds
 * it. `head` must delimit itself (a JSON array does) so that no two (head, text) pairs are one input.
 */
export function contentDigest(head: string, text: string): string {
  const w = wasmSha256();
  if (w) {
    const { buf, view } = w;
    // At most 3 bytes a UTF-16 unit: a short input fits without measuring it.
    const short = (head.length + text.length) * 3 <= WASM_CHUNK;
    const first = short ? utf8Into(buf, head, SHA256_WASM_INPUT) : Buffer.byteLength(head, 'utf8');
    const len = first + (short ? utf8Into(buf, text, SHA256_WASM_INPUT + first) : Buffer.byteLength(text, 'utf8'));
    if (len <= WASM_CHUNK) {
      if (!short) {
        utf8Into(buf, head, SHA256_WASM_INPUT);
        utf8Into(buf, text, SHA256_WASM_INPUT + first);
      }
      const stripes = Math.ceil(len / DIGEST.stripe);
      w.mem.fill(0, SHA256_WASM_INPUT + len, SHA256_WASM_INPUT + stripes * DIGEST.stripe);
      setSeeds(view);
      w.mix(SHA256_WASM_INPUT, stripes);
      w.fin(len);
      return (buf as FastBuffer).hexSlice?.(0, 16) ?? buf.toString('hex', 0, 16);
    }
  }
  const bytes = Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(text, 'utf8')]);
  return w ? contentDigestChunked(w, bytes) : contentDigestJs(bytes);
}

/** The lanes' seeds as 32-bit halves (no BigInt arithmetic on the way), made on first use. */
let seeds: number[] | undefined;
function setSeeds(view: DataView): void {
  seeds ??= [DIGEST.seedA, DIGEST.seedB].flatMap((s) => [Number(s & 0xffffffffn), Number(s >> 32n)]);
  for (let k = 0; k < 4; k++) view.setUint32(4 * k, seeds[k], true);
}

/** An input larger than the module's page, copied in a page at a time. */
function contentDigestChunked(w: WasmSha256, bytes: Uint8Array): string {
  setSeeds(w.view);
  for (let off = 0; off < bytes.length; off += WASM_CHUNK) {
    const n = Math.min(WASM_CHUNK, bytes.length - off);
    const stripes = Math.ceil(n / DIGEST.stripe);
    w.mem.set(bytes.subarray(off, off + n), SHA256_WASM_INPUT);
    w.mem.fill(0, SHA256_WASM_INPUT + n, SHA256_WASM_INPUT + stripes * DIGEST.stripe);
    w.mix(SHA256_WASM_INPUT, stripes);
  }
  w.fin(bytes.length);
  return w.buf.toString('hex', 0, 16);
}

/** The same digest in JavaScript, of the input's bytes (where WebAssembly is missing; the tests compare the two). */
export function contentDigestJs(bytes: Uint8Array): string {
  const M = 0xffffffffffffffffn;
  const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M;
  const padded = new Uint8Array(Math.ceil(bytes.length / DIGEST.stripe) * DIGEST.stripe);
  padded.set(bytes);
  const v = new DataView(padded.buffer);
  let a: bigint = DIGEST.seedA;
  let b: bigint = DIGEST.seedB;
  for (let o = 0; o < padded.length; o += 8) {
    const word = v.getBigUint64(o, true);
    a = (rotl((a + word * DIGEST.a[0]) & M, DIGEST.a[1]) * DIGEST.a[2]) & M;
    b = (rotl((b + word * DIGEST.b[0]) & M, DIGEST.b[1]) * DIGEST.b[2]) & M;
  }
  const len = BigInt(bytes.length);
  const avalanche = (x: bigint): bigint => {
    let h = ((x ^ (x >> 33n)) * DIGEST.a[0]) & M;
    h = ((h ^ (h >> 29n)) * DIGEST.b[2]) & M;
    return h ^ (h >> 32n);
  };
  const out = new DataView(new ArrayBuffer(16));
  out.setBigUint64(0, avalanche(a ^ rotl(b, 23n) ^ len), true);
  out.setBigUint64(8, avalanche(b ^ rotl(a, 41n) ^ ((len * DIGEST.p5) & M)), true);
  return Buffer.from(out.buffer).toString('hex');
}
