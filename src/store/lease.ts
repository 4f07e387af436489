// The writer lease, lock.json (store.md). Source of truth: the file, created with
// O_CREAT|O_EXCL (no flock: the folder may be synced across devices). Who writes: the
// lease operations of FsStore, always under the session mutex, so two stealers racing
// cannot both win. A crash leaves the file; it expires by its own lease_until.
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
