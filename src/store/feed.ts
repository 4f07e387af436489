// The change feed: `<home>/index.feed`, one session id a line, appended after every
// acknowledged append so the SQLite index (src/index) learns which logs grew without
// statting every log. Source of truth: none — it is a hint; the logs stay the truth.
// Who writes: FsStore.afterAppend (any process), O_APPEND on a held descriptor, no fsync. Who reads and rotates:
// the index reconciler. What a crash leaves: at worst a missing hint, which the index's
// periodic stat sweep catches. A failure here never fails an append.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { dropFd, heldFd } from './heldfd.ts';

export const FEED_FILE = 'index.feed';

export function feedPath(home: string): string {
  return join(home, FEED_FILE);
}

/** Past this size with no reader rotating it, the feed starts over (the index then re-stats every log). */
const FEED_MAX_BYTES = 16 * 1024 * 1024;

let changed = false;

/** Whether this process appended to a session (what the full command line's code cache waits for: docs/adr/0087). */
export const storeChangedInProcess = (): boolean => changed;

/** Notes that a session's log changed. Cheap (a stat and a write on a held descriptor), never throws. */
export function noteSessionChanged(home: string, id: string): void {
  changed = true;
  const path = feedPath(home);
  try {
    const st = fs.statSync(path, { bigint: true, throwIfNoEntry: false });
    // A reader that rotated the feed renamed it away: a new inode reopens the descriptor.
    const { fd } = heldFd(path, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, st ? st.ino : null);
    if (st && st.size > FEED_MAX_BYTES) fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, `${id}\n`);
  } catch {
    dropFd(path);
    // A hint only: the index's stat sweep finds what a lost hint missed.
  }
}
