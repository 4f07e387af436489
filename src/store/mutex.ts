// The per-session cross-process mutex: a `.mutex` file created with O_EXCL, held for
// milliseconds around a log append or a pointer CAS.
// Source of truth: the file's existence. Who may write: whoever created it.
// A crash leaves the file behind: a holder that is dead (same host, pid gone) or that has
// held it longer than STALE_MS is broken by renaming the file aside; a breaker checks that
// what it moved aside is the stale lock it saw and puts back anything else. A holder killed
// between its create and its write leaves an empty file: that one is stale after
// EMPTY_GRACE_MS. A taker keeps its file open while it holds the mutex; when it was slow
// enough that its file could have been broken (writing its token, or holding the mutex), it
// checks by inode that the name is still its file, so a stalled taker whose empty file was
// broken takes the mutex again and a holder never unlinks a successor's file.
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { fail } from '../core/errors.ts';
import { FILE_MODE, sleepSync } from './fsutil.ts';

const STALE_MS = 10_000;
const EMPTY_GRACE_MS = 1_000;
export const DEFAULT_MUTEX_TIMEOUT_MS = 5_000;
const HOST = hostname();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(content: string, mtimeMs: number, now: number): boolean {
  if (now - mtimeMs > STALE_MS) return true;
  if (!content) return now - mtimeMs > EMPTY_GRACE_MS;
  const [pid, host] = content.split(' ');
  return host === HOST && Number(pid) > 0 && Number(pid) !== process.pid && !alive(Number(pid));
}

function tryBreak(path: string, content: string): void {
  const aside = `${path}.broken.${process.pid}.${Math.random().toString(36).slice(2, 8)}`;
  try {
    fs.renameSync(path, aside);
  } catch {
    return; // somebody else broke or released it
  }
  let moved = '';
  try {
    moved = fs.readFileSync(aside, 'utf8');
  } catch {}
  if (moved !== content) {
    // We moved a live lock taken between our read and our rename: give it back.
    try {
      fs.linkSync(aside, path);
    } catch {}
  }
  try {
    fs.unlinkSync(aside);
  } catch {}
}

export interface MutexOptions {
  timeoutMs?: number;
}

export function withMutex<T>(dir: string, fn: () => T, opts: MutexOptions = {}): T {
  const path = `${dir}/.mutex`;
  const token = `${process.pid} ${HOST} ${Date.now()} ${Math.random().toString(36).slice(2, 10)}`;
  const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_MUTEX_TIMEOUT_MS);
  let wait = 1;
  let fd = -1;
  let openedAt = 0;
  for (;;) {
    openedAt = Date.now();
    try {
      fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, FILE_MODE);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (fd >= 0) {
      // An empty file is broken only EMPTY_GRACE_MS after its creation: a token written well
      // within that needs no second look; a slower one checks the name is still its file.
      try {
        fs.writeSync(fd, token);
        if (Date.now() - openedAt < EMPTY_GRACE_MS / 2 || stillOurs(path, fd)) break;
      } catch {}
      fs.closeSync(fd); // our empty file was broken as stale before we wrote it
      fd = -1;
      continue;
    }
    try {
      const content = fs.readFileSync(path, 'utf8');
      const st = fs.statSync(path);
      if (isStale(content, st.mtimeMs, Date.now())) {
        tryBreak(path, content);
        continue;
      }
    } catch {
      continue; // released between our open and our read
    }
    if (Date.now() >= deadline) {
      fail('WS103', 'the session mutex is busy: another process held it past the timeout; try again', { lock: path });
    }
    sleepSync(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 50);
  }
  try {
    return fn();
  } finally {
    // A live holder's file is broken only STALE_MS after it was written: a short hold is
    // still ours; a long one unlinks only if the name is still its file.
    try {
      if (Date.now() - openedAt < STALE_MS / 2 || stillOurs(path, fd)) fs.unlinkSync(path);
    } catch {}
    fs.closeSync(fd);
  }
}

/** The name still points at the inode we hold open (which cannot be reused meanwhile). */
function stillOurs(path: string, fd: number): boolean {
  return fs.statSync(path, { bigint: true, throwIfNoEntry: false })?.ino === fs.fstatSync(fd, { bigint: true }).ino;
}
