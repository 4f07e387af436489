// The hook bundle's V8 code cache (docs/adr/0006): dist/hook.cjs is compiled through vm.Script
// with the bytecode V8 made the last time, so a hook process skips parsing and compiling ~90 KB.
// Source of truth: the bundle; the cache is a disposable copy under <home>/cache (folder 0700,
// file 0600), named by the bundle's build hash, size, mtime and the Node version and arch, so a
// cache never meets another source. Who writes: a hook process whose cache was missing,
// rejected, or did not cover its kind of event, after the event reached the store, by a temp
// file and a rename (a reader sees a whole file or none). A crash leaves at most a stray temp file. A cache problem of any kind
// (missing, rejected by V8, corrupt, a symlink, a foreign owner) means compiling as before.
// A cache holds the functions that had run when it was made; its header records which kinds
// of event (start, prompt ...) those were, and the first event of a kind not yet covered
// rewrites it, so after at most one event of each kind every event runs from the cache.
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, readdirSync, renameSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { DIR_MODE, FILE_MODE, uniqueTempName } from '../store/fsutil.ts';
import { HOME_MARKER } from '../store/home.ts';

/** A cache larger than this is not ours (the bundle's is ~120 KB). */
const MAX_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * Free space a disk must keep beyond a cache written to it. A cache is an optimisation: it
 * must never take the room the store's own writes need (the full command line's is ~1 MB, which
 * filled a 1 MiB disk and turned the next append into WS206).
 */
const CACHE_HEADROOM_BYTES = 64 * 1024 * 1024;
const SUFFIX = '.v8cache';
/**
 * The file: MAGIC, the mask of the event kinds covered and the length of V8's bytes (32-bit
 * little-endian each), then V8's bytes twice. V8 checks a cache's version, flags and source
 * length, not its bytes: a flipped byte inside can abort the process. Comparing the two copies
 * (a memcmp, ~0.05 ms) catches a torn or rotten file; a checksum in JavaScript would cost the
 * hook ~1.5 ms, loading node:zlib for its crc32 ~2 ms. It does not catch a deliberate edit of
 * both copies: whoever can write the store's 0700 home can do worse than that already.
 */
const MAGIC = Buffer.from('BTNCACH2');
const HEADER_BYTES = MAGIC.length + 8;

export interface CodeCache {
  /** V8's cached data. */
  data: Buffer;
  /** Bits of the event kinds whose functions it holds. */
  covered: number;
}

// The reading side below runs in every hook process from the loader, which has no cache of its
// own: each function it calls is parsed and compiled lazily on every run (~0.1 M instructions a
// function), so it is written as few straight-line functions, checks inline (docs/adr/0080).

/** The cache folder of a home. */
export const cacheDirOf = (home: string): string => `${home}/cache`;

/**
 * The cache file's name: `<kind>-<build hash>-<size>-<mtime>--` (the bundle; the writer keeps
 * files of this prefix only among those of its kind) and this Node's version and arch. Kinds:
 * `hook` (dist/hook.cjs) and `capture` (dist/hook-transcript.cjs), each pruned on its own.
 */
export function cacheNameOf(bundleHash: string, size: number, mtimeMs: number, kind = 'hook'): string {
  return `${kind}-${bundleHash.slice(0, 16)}-${size}-${Math.floor(mtimeMs)}--${process.version}-${process.arch}${SUFFIX}`;
}

/** File type bits of st_mode (S_IFMT), a folder's (S_IFDIR) and a regular file's (S_IFREG). */
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/**
 * The cache, or undefined when there is none we may use: the folder and the file must be a
 * real folder and a regular file (never through a symlink: O_NOFOLLOW, fstat'd), ours, not
 * writable by group or others. The same two calls the hook makes anyway, where lstat and its
 * Stats helpers would be compiled for this check alone (docs/adr/0018).
 * Only the first copy of V8's bytes is kept in memory: the second is read a piece at a time into
 * `scratch` (the loader hands it the buffer the bundle's source was read into, done with by then)
 * and compared. Memory a process touches for the first time costs a page fault each 4 KiB, ~10 µs
 * on a virtual machine: a buffer of both copies cost the prompt hook ~50 faults (docs/bench.md).
 */
export function readCodeCache(dir: string, name: string, scratch?: Buffer): CodeCache | undefined {
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    const d = fstatSync(fd);
    closeSync(fd);
    fd = undefined;
    if ((d.mode & S_IFMT) !== S_IFDIR || (uid !== -1 && d.uid !== uid) || (d.mode & 0o022) !== 0) return undefined;
    fd = openSync(`${dir}/${name}`, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    const size = st.size;
    if ((st.mode & S_IFMT) !== S_IFREG || (uid !== -1 && st.uid !== uid) || (st.mode & 0o022) !== 0 || size <= HEADER_BYTES || size > MAX_CACHE_BYTES) return undefined;
    // The header and the first copy (the file is the header and two copies of n bytes). A
    // regular file reads whole but at its end: a short read is a file cut short (this function
    // is compiled on every hook, uncached: each line of it costs, docs/adr/0080).
    const n = (size - HEADER_BYTES) / 2;
    if (n !== Math.floor(n)) return undefined;
    const buf = Buffer.allocUnsafe(HEADER_BYTES + n);
    if (readSync(fd, buf, 0, buf.length, 0) !== buf.length) return undefined;
    for (let i = 0; i < MAGIC.length; i++) if (buf[i] !== MAGIC[i]) return undefined;
    // A DataView (V8's own code), not readUInt32LE (Node's JavaScript, compiled on first use).
    const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
    if (view.getUint32(MAGIC.length + 4, true) !== n) return undefined;
    const data = buf.subarray(HEADER_BYTES);
    // The second copy, a piece at a time, each compared with its part of the first.
    const piece = scratch !== undefined && scratch.length >= 16384 ? scratch : Buffer.allocUnsafe(n);
    for (let at = 0; at < n; at += piece.length) {
      const want = Math.min(piece.length, n - at);
      if (readSync(fd, piece, 0, want, HEADER_BYTES + n + at) !== want || !piece.subarray(0, want).equals(data.subarray(at, at + want))) return undefined;
    }
    return { data, covered: view.getUint32(MAGIC.length, true) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A folder we may write a cache into: a real folder (not a symlink), ours, not writable by group or others. */
function cacheDirIfSafe(dir: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
    return (st.mode & S_IFMT) === S_IFDIR && (uid === -1 || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes the cache `make` returns: the folder made 0700 when missing (its parent, the store's home, must
 * exist), a 0600 temp file opened O_EXCL|O_NOFOLLOW, fsync'd, renamed over the name; caches of
 * other builds of the bundle are removed. Not written when the disk would keep less than
 * CACHE_HEADROOM_BYTES free after it. Returns whether it was written; never throws.
 */
export function writeCodeCache(dir: string, name: string, make: () => CodeCache): boolean {
  let tmp: string | undefined;
  try {
    // Only in a home baton made (its marker): a refused home (WS011) is left as it was.
    if (!lstatSync(join(dirname(dir), HOME_MARKER), { throwIfNoEntry: false })?.isFile()) return false;
    try {
      mkdirSync(dir, { mode: DIR_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    if (!cacheDirIfSafe(dir)) return false;
    // Only now: serializing the cache costs milliseconds, wasted when it cannot be kept.
    const cache = make();
    const disk = statfsSync(dir);
    if (disk.bavail * disk.bsize < HEADER_BYTES + 2 * cache.data.length + CACHE_HEADROOM_BYTES) return false;
    tmp = uniqueTempName(dir, name);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE);
    try {
      fchmodSync(fd, FILE_MODE);
      const header = Buffer.alloc(HEADER_BYTES);
      MAGIC.copy(header);
      header.writeUInt32LE(cache.covered >>> 0, MAGIC.length);
      header.writeUInt32LE(cache.data.length, MAGIC.length + 4);
      const data = Buffer.concat([header, cache.data, cache.data]);
      let off = 0;
      while (off < data.length) off += writeSync(fd, data, off, data.length - off);
      // Written once per bundle and Node version: the fsync is cheap here and keeps a torn
      // cache from ever being read after a crash.
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(dir, name));
    tmp = undefined;
    const keep = name.slice(0, name.indexOf('--') + 2);
    const kind = name.slice(0, name.indexOf('-') + 1);
    // An agent's hook bundle also sweeps dist/hook.cjs's (`hook-`): what the hook kept before each
    // agent had its own bundle (docs/adr/0092); that bundle now serves only names baton refuses.
    const old = kind.startsWith('hook.') ? 'hook-' : kind;
    for (const n of readdirSync(dir)) {
      if ((n.startsWith(kind) || n.startsWith(old)) && n.endsWith(SUFFIX) && !n.startsWith(keep)) unlinkSync(join(dir, n));
    }
    return true;
  } catch {
    if (tmp !== undefined) {
      try {
        unlinkSync(tmp);
      } catch {}
    }
    return false;
  }
}

/** A bundle compiled through its code cache, not yet run: what deciding and writing its cache afterwards needs. */
export interface CompiledBundle {
  script: Script;
  file: string;
  /** The cache folder and the cache file's name in it. */
  dir: string;
  name: string;
  /** How the cache served: used, absent, rejected (by V8). */
  cache: 'used' | 'absent' | 'rejected';
  /** The kinds the cache used covers (0 when none was used). */
  covered: number;
}

export interface CachedRun<T> {
  /** What the bundle exported. */
  exports: T;
  /** How the cache served: used, absent, rejected (by V8). */
  cache: 'used' | 'absent' | 'rejected';
  /** The kinds the cache used covers (0 when none was used). */
  covered: number;
  /**
   * After the bundle's work, for an event of kind bit `kind`: makes and writes the cache when
   * none was used or the one used does not cover that kind yet. Returns whether it wrote.
   */
  save: (kind: number) => boolean;
}

/**
 * What Node's loader wraps a CommonJS module's source in; the hook bundles carry it already
 * (scripts/build.mjs, `prewrap`), so the loader compiles the file's text as it is.
 */
export const CJS_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
export const CJS_TAIL = '\n})';

/**
 * Compiles the CommonJS file `file`, ASCII, with the code cache of `home` (not run yet).
 * `bundleHash` is the file's build hash (the build writes it into the loader). `prewrapped`: the
 * file is already the wrapped function (CJS_HEAD … CJS_TAIL), as the build writes the hook
 * bundles: wrapping at run time made V8 flatten a second copy of ~130 KB (~40 page faults).
 * The reading side only: the hook's loader (boot.ts) compiles this and nothing of the writing
 * side, which the bundle itself carries (saveCodeCache), inside its own cache (docs/adr/0080).
 */
export function compileWithCodeCache(file: string, bundleHash: string, home: string, kind = 'hook', prewrapped = false): CompiledBundle {
  const fd = openSync(file, constants.O_RDONLY);
  let source: string;
  let size: number;
  let mtimeMs: number;
  let scratch: Buffer;
  try {
    const st = fstatSync(fd);
    size = st.size;
    mtimeMs = st.mtimeMs;
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n <= 0) break;
      off += n;
    }
    // The bundle is ASCII (scripts/build.mjs refuses any other byte): latin1 reads it as UTF-8
    // would, without UTF-8's scan of 130 KB for multi-byte sequences (docs/adr/0018).
    source = buf.toString('latin1', 0, off);
    scratch = buf; // copied into the string: the cache's check reads through it (readCodeCache)
  } finally {
    closeSync(fd);
  }
  const dir = `${home}/cache`; // cacheDirOf(home), inline: one function less to compile
  const name = cacheNameOf(bundleHash, size, mtimeMs, kind);
  const cached = readCodeCache(dir, name, scratch);
  const cachedData = cached?.data;
  const wrapped = prewrapped ? source : CJS_HEAD + source + CJS_TAIL;
  let script: Script;
  try {
    script = new Script(wrapped, { filename: file, cachedData });
  } catch (e) {
    if (cachedData === undefined) throw e;
    script = new Script(wrapped, { filename: file });
  }
  const cache = cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'used';
  return { script, file, dir, name, cache, covered: cache === 'used' && cached ? cached.covered : 0 };
}

/**
 * Runs a compiled bundle as Node's loader would (exports, require, module, __filename,
 * __dirname) and returns its exports. `req` serves the file's own require() calls.
 */
export function runCompiled<T>(c: CompiledBundle, req: NodeJS.Require): T {
  const mod = { exports: {} as T, filename: c.file, id: c.file, loaded: false };
  c.script.runInThisContext()(mod.exports, req, mod, c.file, dirname(c.file));
  mod.loaded = true;
  return mod.exports;
}

/** Writes the cache of a compiled bundle after an event of kind bit `kind` when none was used or the one used lacks that kind. */
export function saveCodeCache(c: CompiledBundle, kind: number): boolean {
  if ((c.covered & kind) === kind && c.cache === 'used') return false;
  return writeCodeCache(c.dir, c.name, () => ({ data: c.script.createCachedData(), covered: c.covered | kind }));
}

/**
 * Compiles and runs the CommonJS file `file` through the code cache of `home` and returns its
 * exports, with the cache's state and its saver (the lean read commands' loader, the capture
 * bundle inside the hook).
 */
export function runWithCodeCache<T>(file: string, bundleHash: string, home: string, req: NodeJS.Require, kind = 'hook'): CachedRun<T> {
  const c = compileWithCodeCache(file, bundleHash, home, kind);
  const exports = runCompiled<T>(c, req);
  return { exports, cache: c.cache, covered: c.covered, save: (k: number): boolean => saveCodeCache(c, k) };
}
