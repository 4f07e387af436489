// The change feed: `<home>/index.feed`, one session id a line, appended after every
// acknowledged append so the SQLite index (src/index) learns which logs grew without
// statting every log. Source of truth: none — it is a hint; the logs stay the truth.
// Who writes: FsStore.afterAppend (any process), O_APPEND, no fsync. Who reads and rotates:
// the index reconciler. What a crash leaves: at worst a missing hint, which the index's
// periodic stat sweep catches. A failure here never fails an append.
import * as fs from 'node:fs';
import { join } from 'node:path';

export const FEED_FILE = 'index.feed';

export function feedPath(home: string): string {
  return join(home, FEED_FILE);
}

/** Past this size with no reader rotating it, the feed starts over (the index then re-stats every log). */
const FEED_MAX_BYTES = 16 * 1024 * 1024;

/** Notes that a session's log changed. Cheap (one open, one fstat, one write), never throws. */
export function noteSessionChanged(home: string, id: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(feedPath(home), fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o600);
    if (fs.fstatSync(fd).size > FEED_MAX_BYTES) fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, `${id}\n`);
  } catch {
    // A hint only: the index's stat sweep finds what a lost hint missed.
  } finally {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {}
    }
  }
}
