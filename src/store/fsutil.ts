// Filesystem helpers of the store: private modes, durable and atomic writes, a sync sleep.
// Invariant: every folder baton creates is 0700 and every file 0600, whatever the umask; no
// write follows a symbolic link planted in the store (O_NOFOLLOW on files written in place,
// temp + rename for the others, links refused where a store folder should be).
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { join } from '../core/path.ts';
import { errnoError, fail } from '../core/errors.ts';
import { contentDigest, sha256Hex } from '../core/hash.ts';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/**
 * Refuses (WS010) a symbolic link at path; an absent path passes. For slow paths: the hot
 * files are opened with O_NOFOLLOW instead, which costs nothing.
 */
export function refuseLink(path: string): void {
  if (fs.lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) linkRefused(path);
}

/** WS010: a symbolic link stands where the store keeps a file or folder. */
export function linkRefused(path: string): never {
  fail('WS010', `${path} is a symbolic link: baton never writes through a link planted in its store; remove it`, { path });
}

/**
 * Makes a folder (and its missing parents) 0700. A folder inside the store that is a symbolic
 * link is refused (WS010); `followLink` accepts a link to a folder (the store root itself, a
 * target outside the store). A path that cannot become a folder — a file, a dangling link, a
 * parent that exists yet takes no child (/proc) — is WS012, never a retry loop.
 */
export function ensureDir(dir: string, opts: { followLink?: boolean } = {}): void {
  const made = mkdirOnce(dir, opts);
  if (made !== 'ENOENT') return;
  const parent = dirname(dir);
  if (parent === dir) fail('WS012', `cannot create the folder ${dir}`, { path: dir });
  ensureDir(parent, { followLink: true });
  if (mkdirOnce(dir, opts) === 'ENOENT') {
    fail('WS012', `cannot create the folder ${dir}: its parent takes no new folder (a dangling link, or a special filesystem)`, { path: dir });
  }
}

/**
 * Makes `dir` (0700) inside a folder that must already exist: a session's subfolder
 * (`contexts/`, `.shown/`) never makes the session's folder, nor `sessions/` above it — only
 * `FsStore.create` does that, after the home is claimed. A missing parent is WS001.
 */
export function ensureSubdir(dir: string): void {
  if (mkdirOnce(dir, {}) === 'ENOENT') fail('WS001', `${dirname(dir)} does not exist: nothing written`, { path: dirname(dir) });
}

function mkdirOnce(dir: string, opts: { followLink?: boolean }): 'ok' | 'ENOENT' {
  // A folder that is there already (the usual case on the hook path): an lstat says so without
  // the EEXIST error a mkdir would build (docs/adr/0018). Anything else goes the mkdir way.
  if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return 'ok';
  try {
    fs.mkdirSync(dir, { mode: DIR_MODE });
    fs.chmodSync(dir, DIR_MODE);
    return 'ok';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'ENOENT';
    if (code !== 'EEXIST') throw errnoError(e, `cannot create the folder ${dir}`) ?? e;
  }
  const st = fs.lstatSync(dir);
  if (st.isDirectory()) return 'ok';
  if (st.isSymbolicLink()) {
    if (!opts.followLink) linkRefused(dir);
    if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return 'ok';
    fail('WS012', `${dir} is a link to no folder`, { path: dir });
  }
  fail('WS012', `${dir} exists and is not a folder`, { path: dir });
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself has happened.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

let tmpCounter = 0;
export function uniqueTempName(dir: string, base: string): string {
  tmpCounter++;
  return join(dir, `.${base}.${process.pid}.${Date.now().toString(36)}.${tmpCounter}.${Math.random().toString(36).slice(2, 8)}.tmp`);
}

/** A temp file of writeFileAtomic older than this was left by a killed writer (a live one renames within milliseconds). */
export const STALE_TEMP_MS = 60_000;

/** Unlinks the entries of dir that `stale` picks (one readdir); a folder that cannot be read is left alone. */
export function sweepFolder(dir: string, stale: (name: string, path: string) => boolean): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const p = join(dir, n);
    try {
      if (stale(n, p)) fs.unlinkSync(p);
    } catch {}
  }
}

/**
 * Removes the temp files writeFileAtomic's killed writers left in dir (`.<name>.<pid>...tmp`,
 * older than a minute). Callers run it on slow paths (a projection rebuild).
 */
export function sweepStaleTemps(dir: string, nowMs: number): void {
  sweepFolder(dir, (n, p) => {
    if (n[0] !== '.' || !n.endsWith('.tmp')) return false;
    const st = fs.lstatSync(p);
    return st.isFile() && nowMs - st.mtimeMs > STALE_TEMP_MS;
  });
}

/**
 * Atomic replace: a unique temp file in the same folder, optionally fsync'd, renamed over
 * the target (and the folder fsync'd when durable). On failure the temp file is removed
 * and the old file stays.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, opts: { durable?: boolean; verify?: (read: Buffer) => void; mode?: number } = {}): void {
  const dir = dirname(path);
  const tmp = uniqueTempName(dir, path.slice(dir.length + 1));
  let fd: number | undefined;
  try {
    // Read and write: the read-back reads the same file through the descriptor already open.
    fd = fs.openSync(tmp, (opts.verify ? fs.constants.O_RDWR : fs.constants.O_WRONLY) | fs.constants.O_CREAT | fs.constants.O_EXCL, opts.mode ?? FILE_MODE);
    if (opts.mode !== undefined) fs.fchmodSync(fd, opts.mode); // whatever the umask
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    if (opts.durable) fs.fsyncSync(fd);
    const read = opts.verify ? readFdBytes(fd) : undefined;
    fs.closeSync(fd);
    fd = undefined;
    if (opts.verify && read) opts.verify(read);
    fs.renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {}
    }
    try {
      fs.unlinkSync(tmp);
    } catch {}
    throw e;
  }
  if (opts.durable) fsyncDir(dir);
}

/**
 * A store file's bytes: what fs.readFileSync(path) returns, by the open/fstat/read/close the hook path loads anyway:
 * readFileSync's own path costs a hook process the compiling of half a dozen more of Node's
 * functions (docs/adr/0018). Errors are readFileSync's (ENOENT from the open, EISDIR from the read).
 */
export function readFileBytes(path: string): Buffer {
  // O_NOFOLLOW: a link planted where a store file should be is refused (WS010), never read
  // through — a reader that parsed the target would echo its content in its error (issue 28).
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') linkRefused(path);
    throw e;
  }
  try {
    return readFdBytes(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The whole of an open file from offset 0 (its size by fstat; to the end when it has none, as /proc's files). */
export function readFdBytes(fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  let buf = Buffer.allocUnsafe(size > 0 ? size : 8192);
  let n = 0;
  for (;;) {
    if (n === buf.length) {
      if (size > 0) break;
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, n);
      buf = bigger;
    }
    const r = fs.readSync(fd, buf, n, buf.length - n, n);
    if (r === 0) break;
    n += r;
  }
  return n === buf.length ? buf : buf.subarray(0, n);
}

export function readFileOrNull(path: string): Buffer | null {
  try {
    return readFileBytes(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Appends with one write call and fsync; creates the file 0600. A write that takes only part
 * of the data, or whose fsync fails, is cut back off, so the file is as before (a write(2)
 * that fails outright wrote nothing). Caller serialises appends to the file.
 */
export function appendDurable(path: string, data: string | Uint8Array, durable = true): void {
  const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, FILE_MODE);
  let written = 0;
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    written = fs.writeSync(fd, buf);
    if (written !== buf.length) throw Object.assign(new Error(`short write: ${written} of ${buf.length} bytes`), { code: 'ENOSPC', path });
    if (durable) fs.fsyncSync(fd);
  } catch (e) {
    if (written > 0) {
      try {
        fs.ftruncateSync(fd, fs.fstatSync(fd).size - written);
      } catch {}
    }
    throw e;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Rewrites a small, rebuildable file in place: written at offset 0 and padded with spaces
 * to at least its old length (JSON ignores trailing spaces), never truncated or renamed.
 * ext4 flushes data on a truncate-and-rewrite or a rename over a file, which would cost an
 * append more than its own fsync. A reader may see a half-written file: callers use this
 * only for caches and projections that are rebuilt when they do not parse.
 */
export function writeInPlace(path: string, text: string): void {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, FILE_MODE);
  }
  try {
    const old = fs.fstatSync(fd).size;
    let buf = Buffer.from(text, 'utf8');
    if (buf.length < old) buf = Buffer.concat([buf, Buffer.alloc(old - buf.length, 0x20)]);
    let off = 0;
    while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off, off);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A JSON object's text ending in a digest of everything before it (`"check"`), for a file
 * rewritten in place (writeInPlace): a reader racing the write, or a crash in it, may meet old
 * and new bytes mixed, which could parse; the check makes such a mix no value at all. The
 * digest is contentDigest's (docs/adr/0088): a capture rewrites a ~12 KB cursor, whose SHA-256
 * cost it ~1.6 M instructions to write and as much to read.
 */
export function selfCheckedText(value: object): string {
  const body = JSON.stringify(value);
  return `${body.slice(0, -1)},"check":"${contentDigest('', body).slice(0, 16)}"}\n`;
}

const CHECK_RE = /,"check":"([0-9a-f]{16})"\}\s*$/;

/**
 * The object of a selfCheckedText, without its `check`; null when it does not parse or its
 * check fails. A text without a check was written whole (by a rename, by an earlier baton) and
 * is taken as it parses; a check of SHA-256, as versions before docs/adr/0088 wrote, still counts.
 */
export function parseSelfChecked(text: string): Record<string, unknown> | null {
  try {
    const m = CHECK_RE.exec(text);
    if (m) {
      const body = `${text.slice(0, m.index)}}`;
      if (contentDigest('', body).slice(0, 16) !== m[1] && sha256Hex(body).slice(0, 16) !== m[1]) return null;
    }
    const v = JSON.parse(text) as Record<string, unknown> | null;
    if (v === null || typeof v !== 'object') return null;
    delete v.check;
    return v;
  } catch {
    return null;
  }
}

/** What changes whenever a file is written or replaced: its inode, size and ctime. */
export function fileKey(st: fs.BigIntStats): string {
  return `${st.ino}:${st.size}:${st.ctimeNs}`;
}
