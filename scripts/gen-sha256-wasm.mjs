// Writes src/core/sha256-wasm.ts: the SHA-256 block function, and the content digest's mixing
// and finishing functions (docs/adr/0088), as a WebAssembly module, its bytes assembled here
// from the instructions below (no toolchain). The hook path hashes a
// few event lines per process; V8 runs JavaScript that short-lived in its interpreter and
// baseline tiers, where the pure-JS compression function costs ~5 M instructions per KB,
// against ~0.2 M to compile and run the module (docs/adr/0018).
// Usage: node scripts/gen-sha256-wasm.mjs (test/hash.test.ts checks the file is current).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/** Memory layout (bytes): the state H, the constants K, the schedule W, the input. */
export const LAYOUT = { H: 0, K: 32, W: 288, INPUT: 1024 };

const uleb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n) => {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
/** Signed LEB128 of a 64-bit constant (a BigInt, taken as two's complement). */
const sleb64 = (n) => {
  let v = BigInt.asIntN(64, n);
  const out = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
const str = (s) => [...uleb(s.length), ...Buffer.from(s, 'latin1')];
const section = (id, body) => [id, ...uleb(body.length), ...body];
const vec = (items) => [...uleb(items.length), ...items.flat()];

// Instructions.
const get = (l) => [0x20, l];
const set = (l) => [0x21, l];
const tee = (l) => [0x22, l];
const c = (n) => [0x41, ...sleb(n | 0)];
const load = (offset) => [0x28, 2, ...uleb(offset)];
const store = (offset) => [0x36, 2, ...uleb(offset)];
const [add, and, or, xor, shl, shrU, ltU, eqz] = [[0x6a], [0x71], [0x72], [0x73], [0x74], [0x76], [0x49], [0x45]];
const block = [0x02, 0x40];
const loop = [0x03, 0x40];
const end = [0x0b];
const br = (d) => [0x0c, d];
const brIf = (d) => [0x0d, d];

// Locals: p, n (parameters), a..h, i, t1, x.
const [P, N, A, B, C, D, E, F, G, Hh, I, T1, X] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const ROUND_VARS = [A, B, C, D, E, F, G, Hh];
/**
 * Local v rotated right by r, as two shifts and an or: V8's baseline compiler for WebAssembly
 * (Liftoff, all a short-lived process runs) emits i32.rotr and i32.rotl as calls into C
 * (~600 calls a block), the shifts as single instructions; its optimising compiler (TurboFan)
 * turns the pattern back into one rotate (docs/adr/0081).
 */
const rotrOf = (v, r) => [...get(v), ...c(r), ...shrU, ...get(v), ...c(32 - r), ...shl, ...or];
const shrOf = (v, r) => [...get(v), ...c(r), ...shrU];
/** rotr(v, r1) ^ rotr(v, r2) ^ (rotr or shr)(v, r3) of local v. */
const sigma = (v, r1, r2, r3, last) => [...rotrOf(v, r1), ...rotrOf(v, r2), ...xor, ...last(v, r3), ...xor];

/** blocks(p, n): runs the compression function over n 64-byte blocks at p, updating H. */
const body = [
  ...block,
  ...loop,
  ...get(N), ...eqz, ...brIf(1),
  // W[0..16): the block's big-endian words.
  ...c(0), ...set(I),
  ...loop,
  ...get(I),
  // The byte swap: rotl(x, 8) & 0x00ff00ff | rotr(x, 8) & 0xff00ff00, the rotations' lost bits masked off.
  ...get(P), ...get(I), ...add, ...load(0), ...set(X),
  ...get(X), ...c(8), ...shl, ...get(X), ...c(24), ...shrU, ...or, ...c(0x00ff00ff), ...and,
  ...get(X), ...c(8), ...shrU, ...get(X), ...c(24), ...shl, ...or, ...c(0xff00ff00), ...and, ...or,
  ...store(LAYOUT.W),
  ...get(I), ...c(4), ...add, ...tee(I), ...c(64), ...ltU, ...brIf(0),
  ...end,
  // W[16..64).
  ...loop,
  ...get(I),
  ...get(I), ...load(LAYOUT.W - 64),
  ...get(I), ...load(LAYOUT.W - 60), ...set(X), ...sigma(X, 7, 18, 3, shrOf), ...add,
  ...get(I), ...load(LAYOUT.W - 28), ...add,
  ...get(I), ...load(LAYOUT.W - 8), ...set(X), ...sigma(X, 17, 19, 10, shrOf), ...add,
  ...store(LAYOUT.W),
  ...get(I), ...c(4), ...add, ...tee(I), ...c(256), ...ltU, ...brIf(0),
  ...end,
  // a..h = H.
  ...ROUND_VARS.flatMap((v, k) => [...c(0), ...load(LAYOUT.H + 4 * k), ...set(v)]),
  ...c(0), ...set(I),
  ...loop,
  // t1 = h + Σ1(e) + ch(e, f, g) + K[i] + W[i]
  ...get(Hh), ...sigma(E, 6, 11, 25, rotrOf), ...add,
  ...get(E), ...get(F), ...and, ...get(E), ...c(-1), ...xor, ...get(G), ...and, ...xor, ...add,
  ...get(I), ...load(LAYOUT.K), ...add, ...get(I), ...load(LAYOUT.W), ...add, ...set(T1),
  ...get(G), ...set(Hh), ...get(F), ...set(G), ...get(E), ...set(F),
  ...get(D), ...get(T1), ...add, ...set(E),
  ...get(C), ...set(D), ...get(B), ...set(C),
  // a = t1 + Σ0(a) + maj(a, b, c), with b = the old a, c = the old b, d = the old c.
  ...get(T1), ...sigma(A, 2, 13, 22, rotrOf), ...add,
  ...get(A), ...get(C), ...and, ...get(A), ...get(D), ...and, ...xor, ...get(C), ...get(D), ...and, ...xor, ...add,
  ...get(A), ...set(B), ...set(A),
  ...get(I), ...c(4), ...add, ...tee(I), ...c(256), ...ltU, ...brIf(0),
  ...end,
  // H += a..h.
  ...ROUND_VARS.flatMap((v, k) => [...c(0), ...c(0), ...load(LAYOUT.H + 4 * k), ...get(v), ...add, ...store(LAYOUT.H + 4 * k)]),
  ...get(P), ...c(64), ...add, ...set(P),
  ...get(N), ...c(-1), ...add, ...set(N),
  ...br(0),
  ...end,
  ...end,
  ...end,
];

// The content digest (src/core/hash.ts, contentDigest): two 64-bit lanes, each taking every
// 8-byte little-endian word of the input as xxHash64's round does (a = rotl(a + w * P, r) * Q),
// with its own constants; the byte length and each lane folded into the other at the end,
// then xxHash64's avalanche. Not a cryptographic hash: it tells two records of one item apart.
export const DIGEST = {
  SEED_A: 0x9e3779b185ebca87n,
  SEED_B: 0xc2b2ae3d27d4eb4fn,
  /** Lane a: multiplier, rotation, multiplier; lane b the same. */
  A: [0xc2b2ae3d27d4eb4fn, 31, 0x9e3779b185ebca87n],
  B: [0x85ebca77c2b2ae63n, 27, 0x165667b19e3779f9n],
  P5: 0x27d4eb2f165667c5n,
  /** Bytes the lanes take per trip of mix's loop (the input is zero-padded to it). */
  STRIPE: 32,
};
const [i64load, i64store] = [(o) => [0x29, 3, ...uleb(o)], (o) => [0x37, 3, ...uleb(o)]];
const k64 = (n) => [0x42, ...sleb64(n)];
const [add64, mul64, xor64, or64, shl64, shrU64, extendU] = [[0x7c], [0x7e], [0x85], [0x84], [0x86], [0x88], [0xad]];
/** rotl of the i64 on the stack, kept in local t, by r: two shifts and an or (Liftoff, as rotrOf). */
const rotl64 = (t, r) => [...tee(t), ...k64(BigInt(r)), ...shl64, ...get(t), ...k64(BigInt(64 - r)), ...shrU64, ...or64];

// mix(p, n): n stripes of 32 bytes at p into the lanes (a at 0, b at 8). Locals: p, n, a, b, w, t.
const [MP, MN, MA, MB, MW, MT] = [0, 1, 2, 3, 4, 5];
const lane = (v, [mul, r, mul2]) => [...get(v), ...get(MW), ...k64(mul), ...mul64, ...add64, ...rotl64(MT, r), ...k64(mul2), ...mul64, ...set(v)];
const mixBody = [
  ...c(0), ...i64load(0), ...set(MA),
  ...c(0), ...i64load(8), ...set(MB),
  ...block,
  ...loop,
  ...get(MN), ...eqz, ...brIf(1),
  ...[0, 8, 16, 24].flatMap((o) => [...get(MP), ...i64load(o), ...set(MW), ...lane(MA, DIGEST.A), ...lane(MB, DIGEST.B)]),
  ...get(MP), ...c(DIGEST.STRIPE), ...add, ...set(MP),
  ...get(MN), ...c(-1), ...add, ...set(MN),
  ...br(0),
  ...end,
  ...end,
  ...c(0), ...get(MA), ...i64store(0),
  ...c(0), ...get(MB), ...i64store(8),
];

// fin(len): the lanes at 0 and 8 become the digest's two words there. Locals: len, a, b, x, t.
const [FL, FA, FB, FX, FT] = [0, 1, 2, 3, 4];
/** xxHash64's avalanche of local x, left on the stack. */
const avalanche = [
  ...get(FX), ...get(FX), ...k64(33n), ...shrU64, ...xor64, ...k64(DIGEST.A[0]), ...mul64, ...set(FX),
  ...get(FX), ...get(FX), ...k64(29n), ...shrU64, ...xor64, ...k64(DIGEST.B[2]), ...mul64, ...set(FX),
  ...get(FX), ...get(FX), ...k64(32n), ...shrU64, ...xor64,
];
const finBody = [
  ...c(0), ...i64load(0), ...set(FA),
  ...c(0), ...i64load(8), ...set(FB),
  // a' = a ^ rotl(b, 23) ^ len; b' = b ^ rotl(a, 41) ^ len * P5.
  ...get(FA), ...get(FB), ...rotl64(FT, 23), ...xor64, ...get(FL), ...extendU, ...xor64, ...set(FX),
  ...c(0), ...avalanche, ...i64store(0),
  ...get(FB), ...get(FA), ...rotl64(FT, 41), ...xor64, ...get(FL), ...extendU, ...k64(DIGEST.P5), ...mul64, ...xor64, ...set(FX),
  ...c(0), ...avalanche, ...i64store(8),
];

export function sha256WasmBytes() {
  const kBytes = K.flatMap((k) => [k & 0xff, (k >>> 8) & 0xff, (k >>> 16) & 0xff, k >>> 24]);
  const code = [...vec([[11, 0x7f]]), ...body];
  const mixCode = [...vec([[4, 0x7e]]), ...mixBody, ...end];
  const finCode = [...vec([[4, 0x7e]]), ...finBody, ...end];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, 2, 0x7f, 0x7f, 0], [0x60, 1, 0x7f, 0]])),
    ...section(3, vec([[0], [0], [1]])),
    ...section(5, vec([[0, 1]])),
    ...section(7, vec([[...str('memory'), 2, 0], [...str('blocks'), 0, 0], [...str('mix'), 0, 1], [...str('fin'), 0, 2]])),
    ...section(10, vec([[...uleb(code.length), ...code], [...uleb(mixCode.length), ...mixCode], [...uleb(finCode.length), ...finCode]])),
    ...section(11, vec([[0, ...c(LAYOUT.K), ...end, ...uleb(kBytes.length), ...kBytes]])),
  ]);
}

export function sha256WasmSource() {
  const bytes = [...sha256WasmBytes()];
  const lines = [];
  for (let i = 0; i < bytes.length; i += 40) lines.push(`  ${bytes.slice(i, i + 40).join(', ')},`);
  const hex = (n) => `0x${n.toString(16)}n`;
  return `// Generated by scripts/gen-sha256-wasm.mjs: do not edit (test/hash.test.ts checks it is current).
// The SHA-256 compression function as a WebAssembly module: blocks(p, n) runs n 64-byte blocks
// at byte p of its memory over the state H (8 words at ${LAYOUT.H}); K at ${LAYOUT.K}, W at ${LAYOUT.W}, input from ${LAYOUT.INPUT}.
// With it the content digest's functions (docs/adr/0088): mix(p, n) runs n stripes of ${DIGEST.STRIPE} bytes
// at p into two 64-bit lanes at 0 and 8, fin(len) turns the lanes into the digest's two words there.
export const SHA256_WASM_INPUT = ${LAYOUT.INPUT};
/** The digest's constants, for its JavaScript twin (src/core/hash.ts). */
export const DIGEST = {
  seedA: ${hex(DIGEST.SEED_A)},
  seedB: ${hex(DIGEST.SEED_B)},
  a: [${hex(DIGEST.A[0])}, ${DIGEST.A[1]}n, ${hex(DIGEST.A[2])}],
  b: [${hex(DIGEST.B[0])}, ${DIGEST.B[1]}n, ${hex(DIGEST.B[2])}],
  p5: ${hex(DIGEST.P5)},
  stripe: ${DIGEST.STRIPE},
} as const;
export const SHA256_WASM = [
${lines.join('\n')}
];
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('../src/core/sha256-wasm.ts', import.meta.url), sha256WasmSource());
}
