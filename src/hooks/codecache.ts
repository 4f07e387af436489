// The hook bundle's V8 code cache (docs/adr/0006): dist/hook.cjs is compiled through vm.Script
// with the bytecode V8 made the last time, so a hook process skips parsing and compiling ~90 KB.
// Source of truth: the bundle; the cache is a disposable copy under <home>/cache (folder 0700,
// file 0600), named by the bundle's build hash, size, mtime and the Node version and arch, so a
// cache never meets another source. Who writes: a hook process whose cache was missing or
// rejected, after its event reached the store, by a temp file and a rename (a reader sees a
// whole file or none). A crash leaves at most a stray temp file. A cache problem of any kind
// (missing, rejected by V8, corrupt, a symlink, a foreign owner) means compiling as before.
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { DIR_MODE, FILE_MODE, uniqueTempName } from '../store/fsutil.ts';

/** A cache larger than this is not ours (the bundle's is ~120 KB). */
const MAX_CACHE_BYTES = 16 * 1024 * 1024;
const SUFFIX = '.v8cache';

export const cacheDirOf = (home: string): string => join(home, 'cache');

/** The cache file's name for this bundle (build hash, size, mtime) and this Node (version, arch). */
export function cacheNameOf(bundleHash: string, size: number, mtimeMs: number): string {
  return `${bundleKeyOf(bundleHash, size, mtimeMs)}${process.version}-${process.arch}${SUFFIX}`;
}

const bundleKeyOf = (bundleHash: string, size: number, mtimeMs: number): string => `hook-${bundleHash.slice(0, 16)}-${size}-${Math.floor(mtimeMs)}--`;

const ownUid = (): number => (typeof process.getuid === 'function' ? process.getuid() : -1);

/** A folder or file we may trust: ours, not writable by group or others. */
const trusted = (st: { uid: number; mode: number }): boolean => (ownUid() === -1 || st.uid === ownUid()) && (st.mode & 0o022) === 0;

/** The cache folder, when it is a real folder of ours; never follows a symlink. */
function cacheDirIfSafe(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && trusted(st);
  } catch {
    return false;
  }
}

/** Reads the whole of an open file. */
function readAll(fd: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, size - off, off);
    if (n <= 0) break;
    off += n;
  }
  return off === size ? buf : buf.subarray(0, off);
}

/** The cached bytes, or undefined when there is none we may use. */
export function readCodeCache(dir: string, name: string): Buffer | undefined {
  if (!cacheDirIfSafe(dir)) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!st.isFile() || !trusted(st) || st.size === 0 || st.size > MAX_CACHE_BYTES) return undefined;
    return readAll(fd, st.size);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes the cache: the folder made 0700 when missing (its parent, the store's home, must
 * exist), a 0600 temp file opened O_EXCL|O_NOFOLLOW, fsync'd, renamed over the name; caches of
 * other builds of the bundle are removed. Returns whether it was written; never throws.
 */
export function writeCodeCache(dir: string, name: string, data: Buffer): boolean {
  let tmp: string | undefined;
  try {
    try {
      mkdirSync(dir, { mode: DIR_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    if (!cacheDirIfSafe(dir)) return false;
    tmp = uniqueTempName(dir, name);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE);
    try {
      fchmodSync(fd, FILE_MODE);
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
    for (const n of readdirSync(dir)) {
      if (n.startsWith('hook-') && n.endsWith(SUFFIX) && !n.startsWith(keep)) unlinkSync(join(dir, n));
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

export interface CachedRun<T> {
  /** What the bundle exported. */
  exports: T;
  /** How the cache served: used, absent, rejected (by V8, or unreadable). */
  cache: 'used' | 'absent' | 'rejected';
  /** Makes and writes the cache when it was not used; call after the bundle's work. */
  save: () => boolean;
}

/**
 * Compiles and runs the CommonJS file `file` (as Node's loader would: exports, require, module,
 * __filename, __dirname) with the code cache of `home`, and returns its exports. `bundleHash`
 * is the file's build hash (the build writes it into the loader). `req` serves the file's own
 * require() calls (the hook bundle requires only node: built-ins).
 */
export function runWithCodeCache<T>(file: string, bundleHash: string, home: string, req: NodeJS.Require): CachedRun<T> {
  const fd = openSync(file, constants.O_RDONLY);
  let source: string;
  let size: number;
  let mtimeMs: number;
  try {
    const st = fstatSync(fd);
    size = st.size;
    mtimeMs = st.mtimeMs;
    source = readAll(fd, size).toString('utf8');
  } finally {
    closeSync(fd);
  }
  const dir = cacheDirOf(home);
  const name = cacheNameOf(bundleHash, size, mtimeMs);
  const cachedData = readCodeCache(dir, name);
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
  let script: Script;
  try {
    script = new Script(wrapped, { filename: file, cachedData });
  } catch (e) {
    if (cachedData === undefined) throw e;
    script = new Script(wrapped, { filename: file });
  }
  const cache = cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'used';
  const mod = { exports: {} as T, filename: file, id: file, loaded: false };
  script.runInThisContext()(mod.exports, req, mod, file, dirname(file));
  mod.loaded = true;
  return { exports: mod.exports, cache, save: () => cache !== 'used' && writeCodeCache(dir, name, script.createCachedData()) };
}
