// Descriptors of a session's hot files (the log, `.verified`, manifest.json, the change feed)
// kept open across appends by one process: opening and closing them on every append cost
// more than the append's own write (docs/store.md, "Append").
// Source of truth: the files. A descriptor is reused only while its path still names the
// inode it was opened on — the caller passes the inode from a stat it makes anyway; `null`
// (the file is absent) always reopens. Who writes: the store's append path, in this process.
// What a crash leaves: nothing (descriptors die with the process).
import * as fs from 'node:fs';
import { FILE_MODE } from './fsutil.ts';

/** Enough for a busy app server's recent sessions; the least recently used is closed. */
const MAX_HELD = 32;

export interface Held {
  fd: number;
  ino: bigint;
  /** Opened by this call (the file may have been replaced since the last one). */
  fresh: boolean;
}

const held = new Map<string, Held>();

/**
 * A descriptor for path, reused while the path still names inode `ino`; 'any' reuses it
 * unchecked (for a cache file whose stale descriptor only costs a reader a re-verify).
 */
export function heldFd(path: string, flags: number, ino: bigint | null | 'any'): Held {
  const hit = held.get(path);
  if (hit) {
    held.delete(path);
    if (ino === 'any' || hit.ino === ino) {
      held.set(path, hit);
      return { ...hit, fresh: false };
    }
    closeQuietly(hit.fd);
  }
  // O_NOFOLLOW: a link planted where a store file should be is ELOOP (WS010), never written through.
  const fd = fs.openSync(path, flags | fs.constants.O_NOFOLLOW, FILE_MODE);
  const entry: Held = { fd, ino: fs.fstatSync(fd, { bigint: true }).ino, fresh: true };
  held.set(path, entry);
  if (held.size > MAX_HELD) {
    const [oldest, h] = held.entries().next().value as [string, Held];
    held.delete(oldest);
    closeQuietly(h.fd);
  }
  return entry;
}

/** Forgets (and closes) path's descriptor: after a failed write, or when its folder changed. */
export function dropFd(path: string): void {
  const hit = held.get(path);
  if (!hit) return;
  held.delete(path);
  closeQuietly(hit.fd);
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {}
}
