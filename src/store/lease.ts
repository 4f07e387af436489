// The writer lease, lock.json (store.md). Source of truth: the file, created with
// O_CREAT|O_EXCL (no flock: the folder may be synced across devices). Who writes: the
// lease operations of FsStore, always under the session mutex, so two stealers racing
// cannot both win. A crash leaves the file; it expires by its own lease_until — or, for a
// lease the web page took through `baton serve` (surface web), as soon as that server is gone.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { FILE_MODE, fsyncDir, readFileOrNull, writeFileAtomic } from './fsutil.ts';

export const LOCK_FILE = 'lock.json';
export const DEFAULT_LEASE_MS = 10 * 60_000;

export interface Holder {
  surface: string;
  instance_id: string;
  actor: string;
}

export interface LockFile {
  holder: Holder;
  lease: { acquired_at: string; lease_until: string; renew_count: number };
}

export function readLock(dir: string): LockFile | null {
  const buf = readFileOrNull(`${dir}/${LOCK_FILE}`);
  if (!buf) return null;
  try {
    const v = JSON.parse(buf.toString('utf8')) as LockFile;
    if (v?.holder?.instance_id && v.lease?.lease_until) return v;
  } catch {}
  // An unreadable lock file holds nobody; it is treated as expired.
  return { holder: { surface: 'unknown', instance_id: 'unreadable-lock', actor: 'unknown' }, lease: { acquired_at: '', lease_until: '1970-01-01T00:00:00.000Z', renew_count: 0 } };
}

export function isValid(lock: LockFile, nowMs: number): boolean {
  return Date.parse(lock.lease.lease_until) > nowMs;
}

/** Creates lock.json only if absent (O_EXCL), durably. Returns false when it exists. */
export function createLock(dir: string, lock: LockFile): boolean {
  const path = join(dir, LOCK_FILE);
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    fs.writeSync(fd, JSON.stringify(lock));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fsyncDir(dir);
  return true;
}

export function replaceLock(dir: string, lock: LockFile): void {
  writeFileAtomic(join(dir, LOCK_FILE), JSON.stringify(lock), { durable: true });
}

export function removeLock(dir: string): void {
  try {
    fs.unlinkSync(join(dir, LOCK_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  fsyncDir(dir);
}

/**
 * The surface whose leases only an HTTP `baton serve` hands out (the web page), which keeps
 * `server.json` while it runs: such a lease lives no longer than that server. Not `api`: a
 * `baton serve --stdio` client is `api` too, and a stdio server writes no `server.json`, so
 * its absence would not say the holder is gone (docs/adr/0056).
 */
const SERVER_SURFACES: readonly string[] = ['web'];

/** The server's record in the store (src/server writes it while it runs, removes it on exit). */
const SERVER_FILE = 'server.json';

/** Whether a `baton serve` of this home runs now: `server.json` names a pid that is alive. */
export function serverRunning(home: string): boolean {
  let pid: unknown;
  try {
    pid = (JSON.parse(fs.readFileSync(join(home, SERVER_FILE), 'utf8')) as { pid?: unknown }).pid;
  } catch {
    return false;
  }
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A valid lease whose holder is gone: held through `baton serve` (web) while no server of
 * this home runs. It counts as expired (docs/store.md): the next surface that asks releases it
 * (lock.released, reason `expired`) without --steal.
 */
export function heldByGoneServer(lock: LockFile, home: string): boolean {
  return SERVER_SURFACES.includes(lock.holder.surface) && !serverRunning(home);
}
