// Bounded reads of input that comes from outside the store: stdin, a file named on the
// command line. Every such read has a documented limit (docs/cli.md, "Input limits"); it
// reads in chunks and stops at limit + 1 bytes, so a 3 GB pipe or /dev/zero costs one
// chunk past the limit, never the whole input. Safe on the hook path (node:fs only).
import * as fs from 'node:fs';
import { fail } from '../core/errors.ts';
import { sleepSync } from '../core/sleep.ts';

const CHUNK = 64 * 1024;
/** How long a non-blocking stdin may stay empty (EAGAIN) before it counts as ended, in ms. */
const EAGAIN_PATIENCE_MS = 5000;

export interface BoundedRead {
  /** At most limit + 1 bytes. */
  data: Buffer;
  /** More than `limit` bytes were there: the caller refuses. */
  over: boolean;
}

/** Reads fd from its current position until EOF or until more than `limit` bytes came. */
export function readFdBounded(fd: number, limit: number): BoundedRead {
  const chunks: Buffer[] = [];
  let total = 0;
  for (let idle = 0, buf = Buffer.allocUnsafe(CHUNK); total <= limit; ) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, Math.min(buf.length, limit + 1 - total), null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' && idle++ < EAGAIN_PATIENCE_MS) {
        sleepSync(1);
        continue;
      }
      if (code === 'EOF' || code === 'EAGAIN') break;
      throw e;
    }
    if (n <= 0) break;
    // Each chunk keeps its own buffer (no copy); a hook's payload is one chunk, returned as it
    // is: Buffer.concat and Buffer.from would be compiled for it alone (docs/adr/0018).
    chunks.push(buf.subarray(0, n));
    buf = Buffer.allocUnsafe(CHUNK);
    total += n;
  }
  return { data: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), over: total > limit };
}

/**
 * Reads stdin (0) or the file at a path, refused past `limit` bytes with `code`
 * (`{source, limit_bytes}` in the details). A file that cannot be opened is USAGE.
 */
export function readInputBounded(source: string | 0, limit: number, code = 'INPUT_TOO_LARGE'): Buffer {
  const name = source === 0 ? 'stdin' : source;
  let fd: number;
  if (source === 0) fd = 0;
  else {
    try {
      fd = fs.openSync(source, 'r');
    } catch (e) {
      fail('USAGE', `cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { source });
    }
  }
  let r: BoundedRead;
  try {
    r = readFdBounded(fd, limit);
  } catch (e) {
    fail('USAGE', `cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { source: name });
  } finally {
    if (fd !== 0) fs.closeSync(fd);
  }
  if (r.over) fail(code, `${name} is over the ${limit}-byte limit; nothing was written`, { source: name, limit_bytes: limit });
  return r.data;
}
