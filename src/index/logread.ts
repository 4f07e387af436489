// Reads a session log into its projection (project.ts), from the start or from where the
// index stopped. Read-only: the index never writes a log. A torn last line is left for
// later (not projected, not an error); a bad line with valid lines after it marks the
// session corrupt (WS201) and projection stops there. Checks each line's JSON, seq
// continuity and the presence of h; the full chain check is `session verify`'s job.
import { isAscii } from 'node:buffer';
import * as fs from 'node:fs';
import { type StoredEvent, parseEventLine } from '../core/events.ts';
import { type SessionRow, type TextOp, projectEvent } from './project.ts';

const CHUNK = 4 * 1024 * 1024;
const SMALL = 256 * 1024;
let shared: Buffer | null = null;
let small: Buffer | null = null;

/** A read buffer: a small one for a short tail (a catch-up), the large one for whole logs. */
function bufferFor(bytes: number): Buffer {
  if (bytes <= SMALL) return (small ??= Buffer.allocUnsafe(SMALL));
  return (shared ??= Buffer.allocUnsafe(CHUNK));
}

export interface LogStat {
  size: number;
  ctime: string;
  ino: string;
}

export function statLog(path: string): LogStat | null {
  try {
    const st = fs.statSync(path, { bigint: true });
    return { size: Number(st.size), ctime: String(st.ctimeNs), ino: String(st.ino) };
  } catch {
    return null;
  }
}

export type ReadOutcome = { ok: true } | { ok: false; conflict: string };

/** The line's JSON, seq and fields; the chain itself is `session verify`'s to check. */
function parseLine(raw: string, expectSeq: number): StoredEvent | string {
  const ev = parseEventLine(raw, expectSeq);
  if (typeof ev === 'string') return ev;
  if (typeof ev.h !== 'string' || typeof ev.type !== 'string' || typeof ev.ts !== 'string') return 'missing seq, ts, type or h';
  return ev;
}

/**
 * Projects the log at `path` into `row`. A fresh row (last_seq 0) reads from byte 0; an
 * indexed row re-reads its last projected line first and returns a conflict when that line
 * is no longer there (the log is not an extension of what was indexed).
 */
export function readLogInto(path: string, row: SessionRow, size: number, text?: (op: TextOp) => void): ReadOutcome {
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return row.last_seq > 0 ? { ok: false, conflict: 'the log is gone' } : { ok: true };
    throw e;
  }
  try {
    const incremental = row.last_seq > 0;
    if (incremental && size < row.log_offset) {
      return { ok: false, conflict: `the log is ${size} bytes, shorter than the ${row.log_offset} bytes indexed` };
    }
    let pos = incremental ? row.line_start : 0;
    let checkFirst = incremental;
    const buf = bufferFor(size - pos);
    let have = 0; // bytes of buf holding data, starting at file offset `base`
    let base = pos;
    while (pos < size || have > 0) {
      if (pos < size && have < buf.length) {
        const n = fs.readSync(fd, buf, have, Math.min(buf.length - have, size - pos), pos);
        if (n <= 0) break;
        have += n;
        pos += n;
      }
      let start = 0;
      // The complete lines held end at `end`. When they are all ASCII (most logs), one decode
      // serves them all and string offsets are byte offsets; else each line is decoded alone.
      const end = have > 0 ? buf.lastIndexOf(10, have - 1) : -1;
      const ascii = end > 0 && isAscii(buf.subarray(0, end)) ? buf.toString('latin1', 0, end) : null;
      while (start <= end) {
        let nl = ascii === null ? buf.indexOf(10, start) : ascii.indexOf('\n', start);
        if (nl < 0) nl = end; // the last line's newline is not in `ascii`
        const lineStart = base + start;
        const lineEnd = base + nl + 1;
        const raw = ascii === null ? buf.toString('utf8', start, nl) : ascii.slice(start, nl);
        start = nl + 1;
        if (checkFirst) {
          checkFirst = false;
          let ev: StoredEvent | null = null;
          try {
            ev = JSON.parse(raw);
          } catch {}
          if (!ev || ev.seq !== row.last_seq || ev.h !== row.last_h || lineEnd !== row.log_offset) {
            return { ok: false, conflict: `the line indexed as seq ${row.last_seq} (h ${row.last_h}) is no longer at byte ${row.line_start}` };
          }
          continue;
        }
        const ev = parseLine(raw, row.last_seq + 1);
        if (typeof ev === 'string') {
          if (lineEnd < size) row.corrupt = { line: row.last_seq + 1, offset: lineStart, reason: ev };
          return { ok: true };
        }
        projectEvent(row, ev, lineStart, lineEnd, text);
      }
      // Keep the partial line at the front of the buffer.
      if (start === 0 && have === buf.length) {
        row.corrupt = { line: row.last_seq + 1, offset: base, reason: 'line longer than the read buffer' };
        return { ok: true };
      }
      if (start > 0) {
        buf.copyWithin(0, start, have);
        have -= start;
        base += start;
      }
      if (pos >= size) break; // what is left has no newline: a torn or in-progress tail
    }
    if (checkFirst) return { ok: false, conflict: `the line indexed as seq ${row.last_seq} is no longer complete at byte ${row.line_start}` };
    return { ok: true };
  } finally {
    fs.closeSync(fd);
  }
}
