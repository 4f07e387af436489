// Reading a session's events the way every surface presents them: `session log`'s
// redactions, and byte-bounded pages from a byte position (the app server's event/replay
// and event/subscribe). Read-only: the log is the truth and nothing here writes it. Each
// line read is checked against the chain from the position's hash, as scanLog does.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { MAX_LINE_BYTES, type StoredEvent, checkLine } from '../core/events.ts';
import { presentEvent } from '../core/session.ts';
import { LOG_FILE } from '../store/log.ts';
import type { FsStore } from '../store/store.ts';

/** Whether bytes [from, to) of the log may hold a context.rewritten event (a cheap byte search). */
function mentionsRewrite(path: string, from: number, to = Number.POSITIVE_INFINITY): boolean {
  try {
    const fd = fs.openSync(path, 'r');
    const buf = Buffer.allocUnsafe(1 << 20);
    let pos = from;
    try {
      while (pos < to) {
        const n = fs.readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
        if (n <= 0) break;
        if (buf.subarray(0, n).includes('"context.rewritten"')) return true;
        if (n < buf.length) break;
        pos += n - 20 > 0 ? n - 20 : n;
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
  return false;
}

/** Collects `session redact` rules with a cheap byte search before parsing anything. */
export function redactionsOf(store: FsStore, id: string): Map<number, string[]> {
  const map = new Map<number, string[]>();
  if (!mentionsRewrite(join(store.dir(id), LOG_FILE), 0)) return map;
  store.events(id, 1, (ev) => noteRedaction(map, ev));
  return map;
}

/**
 * The redaction rules of sessions a long-lived reader pages through: searched once, then only
 * in the bytes appended since (a rule arrives with a context.rewritten event, never otherwise).
 */
export class RedactionCache {
  private readonly bySession = new Map<string, { size: number; map: Map<number, string[]> }>();

  of(store: FsStore, id: string): Map<number, string[]> {
    const path = join(store.dir(id), LOG_FILE);
    let size = 0;
    try {
      size = fs.statSync(path).size;
    } catch {}
    const hit = this.bySession.get(id);
    if (hit && hit.size === size) return hit.map;
    const map = hit && hit.size < size && !mentionsRewrite(path, hit.size, size) ? hit.map : redactionsOf(store, id);
    if (this.bySession.size > 256) this.bySession.delete(this.bySession.keys().next().value as string);
    this.bySession.set(id, { size, map });
    return map;
  }
}

/** Adds a context.rewritten event's rule to the map (a reader following the log calls it on each event). */
export function noteRedaction(map: Map<number, string[]>, ev: StoredEvent): void {
  const p = ev.payload as Record<string, unknown>;
  if (ev.type === 'context.rewritten' && Array.isArray(p.redacts) && typeof p.pattern === 'string') {
    for (const s of p.redacts as number[]) map.set(s, [...(map.get(s) ?? []), p.pattern]);
  }
}

/** A position in a log: the byte offset after event `seq`, whose chain hash is `h`. */
export interface LogPosition {
  offset: number;
  seq: number;
  h: string;
}

export const START: LogPosition = { offset: 0, seq: 0, h: '' };

export interface Page {
  /** Events with seq > skipTo, presented (redactions applied), with their encoded bytes and, when unredacted, the log line itself. */
  events: { event: StoredEvent; bytes: number; raw: string | null }[];
  /** Where the next read starts (after the last event read, returned or skipped). */
  next: LogPosition;
  /** More complete lines follow in the file as it was. */
  more: boolean;
  /** The first event after the page was larger than maxBytes and is alone in it. */
  oversize: boolean;
  /** A line that fails the chain check or does not parse (not a torn tail). */
  corrupt: { seq: number; offset: number; reason: string } | null;
}

const CHUNK = 256 * 1024;

/**
 * Reads complete events after `from`, skipping those with seq <= skipTo, until the next one
 * would take the page past maxBytes of encoded events (JSON as sent). An event larger than
 * maxBytes on its own comes alone, marked oversize. Reads at most maxBytes + one line + a
 * chunk into memory. A torn tail (an incomplete last line) is left for a later read.
 */
/** While skipping to a page, a verified position is offered every CHECKPOINT_EVERY events (for a PositionCache). */
export const CHECKPOINT_EVERY = 4096;

export function readPage(path: string, from: LogPosition, skipTo: number, maxBytes: number, redactions: Map<number, string[]>, checkpoint?: (p: LogPosition) => void): Page {
  const page: Page = { events: [], next: { ...from }, more: false, oversize: false, corrupt: null };
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return page;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    let pos = from.offset;
    let carry: Buffer = Buffer.alloc(0);
    let used = 0;
    const buf = Buffer.allocUnsafe(CHUNK);
    while (pos < size) {
      const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, size - pos), pos);
      if (n <= 0) break;
      pos += n;
      const chunk: Buffer = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl < 0) break;
        const raw = chunk.toString('utf8', start, nl);
        const chk = checkLine(raw, page.next.seq + 1, page.next.h);
        if (!chk.ok) {
          page.corrupt = { seq: page.next.seq + 1, offset: page.next.offset, reason: chk.reason };
          return page;
        }
        const ev = chk.event;
        if (ev.seq > skipTo) {
          const shown = redactions.size ? presentEvent(ev, redactions) : ev;
          const bytes = shown === ev ? Buffer.byteLength(raw) : Buffer.byteLength(JSON.stringify(shown));
          if (used + bytes > maxBytes && page.events.length > 0) {
            page.more = true;
            return page;
          }
          page.events.push({ event: shown, bytes, raw: shown === ev ? raw : null });
          used += bytes;
          if (bytes > maxBytes) page.oversize = true;
        }
        page.next = { offset: page.next.offset + (nl - start) + 1, seq: ev.seq, h: ev.h };
        if (checkpoint && ev.seq < skipTo && ev.seq % CHECKPOINT_EVERY === 0) checkpoint({ ...page.next });
        start = nl + 1;
        if (page.oversize) {
          page.more = page.next.offset < size;
          return page;
        }
      }
      carry = Buffer.from(chunk.subarray(start));
      if (carry.length > MAX_LINE_BYTES + 1) {
        page.corrupt = { seq: page.next.seq + 1, offset: page.next.offset, reason: 'line longer than 1 MiB' };
        return page;
      }
    }
    return page;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The position after the last complete line of a log, read from its end (no full scan).
 * The line is parsed, not chain-checked: a reader starting here checks the chain from its h.
 * START when the log is empty or its last line cannot be read.
 */
export function tailPosition(path: string): LogPosition {
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch {
    return START;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, MAX_LINE_BYTES + 2);
    const buf = Buffer.allocUnsafe(len);
    const n = fs.readSync(fd, buf, 0, len, size - len);
    const end = buf.lastIndexOf(10, n - 1);
    if (end < 0) return START;
    const startNl = end > 0 ? buf.lastIndexOf(10, end - 1) : -1;
    if (startNl < 0 && size - len > 0) return START;
    const ev = JSON.parse(buf.toString('utf8', startNl + 1, end)) as { seq?: unknown; h?: unknown };
    if (!Number.isInteger(ev.seq) || typeof ev.h !== 'string') return START;
    return { offset: size - n + end + 1, seq: ev.seq as number, h: ev.h };
  } catch {
    return START;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Positions already read in a session's log, so a reader paging through it (event/replay's
 * nextAfter) continues from where the last page ended instead of from the first byte.
 * Bounded: the most recent positions of the most recent sessions.
 */
export class PositionCache {
  private readonly bySession = new Map<string, LogPosition[]>();
  constructor(
    private readonly sessions = 64,
    private readonly perSession = 32,
  ) {}

  /** The furthest known position at or before seq (START when none). */
  before(id: string, seq: number, logSize: number): LogPosition {
    const list = this.bySession.get(id);
    if (!list) return START;
    let best = START;
    for (const p of list) if (p.seq <= seq && p.seq > best.seq && p.offset <= logSize) best = p;
    return best;
  }

  remember(id: string, p: LogPosition): void {
    if (p.seq === 0) return;
    let list = this.bySession.get(id);
    if (list) this.bySession.delete(id);
    else list = [];
    this.bySession.set(id, list);
    if (!list.some((q) => q.seq === p.seq)) list.push(p);
    if (list.length > this.perSession) list.shift();
    if (this.bySession.size > this.sessions) this.bySession.delete(this.bySession.keys().next().value as string);
  }

  forget(id: string): void {
    this.bySession.delete(id);
  }
}
