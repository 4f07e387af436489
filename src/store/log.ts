// The canonical event log, events.jsonl: append-only, one event a line, chained.
// Source of truth: this file. Who writes: appendEvents, under the session mutex, one write
// call and an fsync before success. What a crash leaves: at most a torn last line, which
// readers skip and the next writer (or repair) moves into quarantine/ before appending.
// Torn means without its newline or not JSON: a complete line that parses but breaks the
// seq or the chain was written whole and then changed, which is corruption (WS201).
// `.verified` caches (size, ctime, inode) -> (last seq, last h) after each append (but an
// imported session's creating one, ADR 0075), so an append reads no tail; any change not made by an append (tamper, torn write) misses the
// cache and the whole chain is re-verified before anything is written.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { errnoError, fail } from '../core/errors.ts';
import { type EventInput, MAX_LINE_BYTES, NOT_JSON, type StoredEvent, checkLine, encodeEvent } from '../core/events.ts';
import { FILE_MODE, ensureDir, linkRefused, writeInPlace } from './fsutil.ts';
import { dropFd, heldFd } from './heldfd.ts';
import { assertMutexStillHeld } from './mutex.ts';

export const LOG_FILE = 'events.jsonl';
const SIDECAR = '.verified';
const READ_CHUNK = 1024 * 1024;

export interface ScanResult {
  lastSeq: number;
  lastH: string;
  /** Bytes of the log that hold complete, valid lines. */
  validBytes: number;
  /** A torn last line: bytes after validBytes, when they are not a corruption in the middle. */
  torn: { offset: number; bytes: number } | null;
  /** The first bad line in the middle of the log (WS201). */
  corrupt: { line: number; offset: number; reason: string } | null;
  /** A session.archived event was seen. */
  archived: boolean;
  /** The allowed runtimes in force (session.created, then session.updated). */
  allowed: string[] | null;
}

interface Sidecar extends LogFacts {
  size: number;
  ctime: string;
  ino: string;
  seq: number;
  h: string;
}

/** What every append needs to know about a log besides its tail. */
export interface LogFacts {
  archived: boolean;
  allowed: string[] | null;
}

export function foldFacts(facts: LogFacts, ev: { type: string; payload: Record<string, unknown> }): void {
  if (ev.type === 'session.archived') facts.archived = true;
  else if ((ev.type === 'session.created' || ev.type === 'session.imported' || ev.type === 'session.updated') && Array.isArray(ev.payload.allowed_runtimes)) {
    facts.allowed = ev.payload.allowed_runtimes as string[];
  }
}

/**
 * Streams the log line by line from the start, checking seq and chain. `onEvent` gets each
 * valid event with its raw line; stops at the first bad line. A last line without its
 * newline, or one that is not JSON, is a torn tail; any other bad line is corruption.
 */
export function scanLog(
  path: string,
  onEvent?: (ev: StoredEvent, raw: string) => void,
  from: { offset: number; seq: number; h: string } = { offset: 0, seq: 0, h: '' },
): ScanResult {
  const res: ScanResult = { lastSeq: from.seq, lastH: from.h, validBytes: from.offset, torn: null, corrupt: null, archived: false, allowed: null };
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return res;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    let pos = from.offset;
    let carry: Buffer = Buffer.alloc(0);
    let lineNo = from.seq;
    let offset = from.offset;
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    while (pos < size) {
      const n = fs.readSync(fd, buf, 0, Math.min(READ_CHUNK, size - pos), pos);
      if (n <= 0) break;
      pos += n;
      let chunk: Buffer = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl < 0) break;
        lineNo++;
        const raw = chunk.toString('utf8', start, nl);
        const chk = checkLine(raw, res.lastSeq + 1, res.lastH);
        if (!chk.ok) {
          const endOfLine = offset + (nl - start) + 1;
          if (endOfLine >= size && chk.reason === NOT_JSON) res.torn = { offset, bytes: size - offset };
          else res.corrupt = { line: lineNo, offset, reason: chk.reason };
          return res;
        }
        res.lastSeq = chk.event.seq;
        res.lastH = chk.event.h;
        offset += nl - start + 1;
        res.validBytes = offset;
        foldFacts(res, chk.event);
        onEvent?.(chk.event, raw);
        start = nl + 1;
      }
      chunk = chunk.subarray(start);
      carry = Buffer.from(chunk);
      if (carry.length > MAX_LINE_BYTES + 1) {
        // Longer than any line an append writes. Ended by a newline, it is corruption; running
        // unterminated to the end of the file, it is a torn tail like any other: an
        // unterminated line was never acknowledged (issue 28), so it is quarantined, not fatal.
        if (newlineAfter(fd, pos, size, buf)) res.corrupt = { line: lineNo + 1, offset, reason: 'line longer than 1 MiB' };
        else res.torn = { offset, bytes: size - offset };
        return res;
      }
    }
    if (carry.length > 0) res.torn = { offset, bytes: carry.length };
    return res;
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether a newline occurs in [pos, size) of the file: read in chunks, nothing kept. */
function newlineAfter(fd: number, pos: number, size: number, buf: Buffer): boolean {
  while (pos < size) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n <= 0) return false;
    if (buf.subarray(0, n).includes(10)) return true;
    pos += n;
  }
  return false;
}

function statKey(st: fs.BigIntStats): { size: number; ctime: string; ino: string } {
  return { size: Number(st.size), ctime: String(st.ctimeNs), ino: String(st.ino) };
}

function readSidecar(dir: string): Sidecar | null {
  try {
    return JSON.parse(fs.readFileSync(join(dir, SIDECAR), 'utf8')) as Sidecar;
  } catch {
    return null;
  }
}

/** The sidecar this process last wrote, per session folder: an append after our own reads no file. */
const ownSidecars = new Map<string, Sidecar>();

/** Sidecars are written padded to this length, so a shorter one never leaves a longer one's tail. */
const SIDECAR_BYTES = 512;

function writeSidecar(dir: string, s: Sidecar, logReopened: boolean): void {
  ownSidecars.set(dir, s);
  const path = `${dir}/${SIDECAR}`;
  try {
    const text = JSON.stringify(s);
    if (logReopened || text.length > SIDECAR_BYTES) dropFd(path);
    if (text.length > SIDECAR_BYTES) {
      writeInPlace(path, text);
      return;
    }
    // The descriptor follows the log's: a log reopened (replaced, or a new session) reopens it.
    const { fd } = heldFd(path, fs.constants.O_WRONLY | fs.constants.O_CREAT, 'any');
    fs.writeSync(fd, text.padEnd(SIDECAR_BYTES, ' '), 0, 'utf8');
  } catch {
    dropFd(path);
    // Only a cache: the next append re-verifies.
  }
}

export interface TailState extends LogFacts {
  lastSeq: number;
  lastH: string;
  size: number;
  /** The log's inode, or null when there is no log yet. */
  ino: bigint | null;
  /** The log is exactly as this process's own last append left it: nobody appended since. */
  own: boolean;
}

/** Moves a torn tail into quarantine/ and truncates the log to its valid bytes. Caller holds the mutex. */
export function quarantineTail(dir: string, validBytes: number, nowIso: string): string | null {
  const path = join(dir, LOG_FILE);
  const fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW);
  const size = fs.fstatSync(fd).size;
  if (size <= validBytes) {
    fs.closeSync(fd);
    return null;
  }
  try {
    const tail = Buffer.alloc(size - validBytes);
    fs.readSync(fd, tail, 0, tail.length, validBytes);
    const qdir = join(dir, 'quarantine');
    ensureDir(qdir);
    const qpath = join(qdir, `${nowIso.replace(/[:.]/g, '-')}-events.tail-at-${validBytes}`);
    const qfd = fs.openSync(qpath, 'wx', FILE_MODE);
    try {
      if (fs.writeSync(qfd, tail) !== tail.length) fail('WS206', `the disk took only part of the torn tail set aside in ${qpath}`);
      fs.fsyncSync(qfd);
    } catch (e) {
      // The tail stays in the log (readers skip it) until a quarantine can hold all of it.
      fs.closeSync(qfd);
      try {
        fs.unlinkSync(qpath);
        fs.rmdirSync(qdir);
      } catch {}
      throw errnoError(e, 'setting a torn tail aside failed; the log is unchanged') ?? e;
    }
    fs.closeSync(qfd);
    fs.ftruncateSync(fd, validBytes);
    fs.fsyncSync(fd);
    return qpath;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The last seq and h of a log, verified. Caller holds the mutex. Quarantines a torn tail;
 * refuses (WS201) a log corrupt in the middle.
 */
export function verifiedTail(dir: string, sessionId: string, nowIso: string): TailState & { quarantined: string | null } {
  const path = `${dir}/${LOG_FILE}`;
  let st: fs.BigIntStats | null = null;
  try {
    // lstat, not stat (same cost): a log that is a link is refused before anything reads or writes through it.
    st = fs.lstatSync(path, { bigint: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (st?.isSymbolicLink()) linkRefused(path);
  if (!st) return { lastSeq: 0, lastH: '', size: 0, ino: null, own: false, quarantined: null, archived: false, allowed: null };
  const key = statKey(st);
  const matches = (c: Sidecar | null | undefined): c is Sidecar => !!c && c.size === key.size && c.ctime === key.ctime && c.ino === key.ino;
  const mine = ownSidecars.get(dir);
  const own = matches(mine);
  const side = own ? mine : readSidecar(dir);
  if (matches(side)) {
    return { lastSeq: side.seq, lastH: side.h, size: key.size, ino: st.ino, own, quarantined: null, archived: side.archived, allowed: side.allowed };
  }
  const scan = scanLog(path);
  if (scan.corrupt) {
    fail('WS201', `events log of ${sessionId} is corrupt at line ${scan.corrupt.line} (${scan.corrupt.reason}); writes are refused — run baton session verify ${sessionId}`, {
      session: sessionId,
      line: scan.corrupt.line,
      reason: scan.corrupt.reason,
    });
  }
  let quarantined: string | null = null;
  if (scan.torn) quarantined = quarantineTail(dir, scan.validBytes, nowIso);
  return { lastSeq: scan.lastSeq, lastH: scan.lastH, size: scan.validBytes, ino: st.ino, own: false, quarantined, archived: scan.archived, allowed: scan.allowed };
}

/**
 * Appends events as one write, fsync'd. Caller holds the mutex and has checked permissions.
 * `ts` is the same for the batch. Returns the stored events.
 */
export function appendLocked(
  dir: string,
  sessionId: string,
  inputs: EventInput[],
  nowIso: string,
  opts: { expectedSeq?: number; check?: (tail: TailState) => void; sidecar?: boolean; durable?: boolean } = {},
): StoredEvent[] {
  const tail = verifiedTail(dir, sessionId, nowIso);
  opts.check?.(tail);
  const expectedSeq = opts.expectedSeq;
  if (expectedSeq !== undefined && expectedSeq !== tail.lastSeq + 1) {
    fail('WS103', `expected next seq ${expectedSeq} but the log is at ${tail.lastSeq}`, { expected_seq: expectedSeq, last_seq: tail.lastSeq });
  }
  let seq = tail.lastSeq;
  let h = tail.lastH;
  const out: StoredEvent[] = [];
  let text = '';
  for (const e of inputs) {
    seq++;
    const enc = encodeEvent(seq, nowIso, e, h);
    // Measured only when it may be too long (measuring flattens the line: a copy of it).
    if (enc.line.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(enc.line) > MAX_LINE_BYTES) {
      fail('WS205', `event ${e.type} is larger than 1 MiB as a line: store a large payload as an artifact`, { limit_bytes: MAX_LINE_BYTES });
    }
    h = enc.h;
    text += enc.line;
    out.push({ seq, ts: nowIso, type: e.type, surface: e.surface, actor: e.actor, payload: e.payload, h });
  }
  const facts: LogFacts = { archived: tail.archived, allowed: tail.allowed };
  for (const e of inputs) foldFacts(facts, e);
  writeVerified(dir, sessionId, tail, text, seq, h, facts, opts.sidecar ?? true, opts.durable ?? true);
  return out;
}

/**
 * Writes chained text after `tail` as one write, fsync'd, and records the new tail (the
 * sidecar; without it, the next append verifies the chain from the log once). Caller holds the mutex.
 */
function writeVerified(dir: string, sessionId: string, tail: TailState, text: string, seq: number, h: string, facts: LogFacts, sidecar = true, durable = true): void {
  const path = `${dir}/${LOG_FILE}`;
  assertMutexStillHeld(dir);
  let log: ReturnType<typeof heldFd> | undefined;
  try {
    log = heldFd(path, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, tail.ino);
    const buf = Buffer.from(text);
    const n = fs.writeSync(log.fd, buf);
    if (n !== buf.length) fail('WS206', `the disk took ${n} of the ${buf.length} bytes of an append to ${sessionId} (full, or a file size limit); nothing was written`, { session: sessionId });
    // Not durable: a staged session's first write (FsStore.createStaged), fsync'd by syncStaged before it is published.
    if (durable) fs.fsyncSync(log.fd);
    if (sidecar) {
      const st = fs.fstatSync(log.fd, { bigint: true });
      writeSidecar(dir, { ...statKey(st), seq, h, ...facts }, log.fresh);
    } else {
      // A sidecar left from before (a crash) no longer matches the log; this process's own record goes.
      ownSidecars.delete(dir);
      if (log.fresh) dropFd(`${dir}/${SIDECAR}`);
    }
  } catch (e) {
    // Not acknowledged: whatever part of it reached the file goes, so a failed append
    // changes nothing (no torn line for the next writer to quarantine). Still under the mutex.
    if (log) {
      try {
        fs.ftruncateSync(log.fd, tail.size);
        fs.fsyncSync(log.fd);
      } catch {}
    }
    dropFd(path);
    throw errnoError(e, `the append to ${sessionId} failed; nothing was written`) ?? e;
  }
}

/**
 * Appends lines written elsewhere (team replication), byte for byte: same seq, same h. Each
 * line must continue the local chain exactly (WS203 otherwise, and nothing is written).
 * Caller holds the mutex. Returns the new last seq and h.
 */
export function appendVerifiedLines(dir: string, sessionId: string, lines: string[], nowIso: string): { lastSeq: number; lastH: string } {
  const tail = verifiedTail(dir, sessionId, nowIso);
  let seq = tail.lastSeq;
  let h = tail.lastH;
  const facts: LogFacts = { archived: tail.archived, allowed: tail.allowed };
  let text = '';
  for (const line of lines) {
    const chk = checkLine(line, seq + 1, h);
    if (!chk.ok) {
      fail('WS203', `team history diverges from the local log of ${sessionId} at seq ${seq + 1}: ${chk.reason}; nothing was appended`, { session: sessionId, seq: seq + 1, reason: chk.reason });
    }
    seq = chk.event.seq;
    h = chk.event.h;
    foldFacts(facts, chk.event);
    text += `${line}\n`;
  }
  if (text) writeVerified(dir, sessionId, tail, text, seq, h, facts);
  return { lastSeq: seq, lastH: h };
}

/**
 * Cuts the log back to its first `keepSeq` events, after copying the lines cut into
 * `keptPath` (durably, and refusing to overwrite one): the fork of a former owner (team.md,
 * "Nothing lost on a fork"). Caller holds the mutex. Returns how many lines were set aside.
 */
export function forkAside(dir: string, sessionId: string, keepSeq: number, keptPath: string): number {
  const path = join(dir, LOG_FILE);
  const cut: string[] = [];
  let keepBytes = -1;
  let bytes = 0;
  const scan = scanLog(path, (ev, raw) => {
    if (ev.seq <= keepSeq) bytes += Buffer.byteLength(raw) + 1;
    else cut.push(raw);
  });
  if (scan.corrupt) fail('WS201', `events log of ${sessionId} is corrupt at line ${scan.corrupt.line}; nothing set aside`, { session: sessionId });
  keepBytes = bytes;
  if (cut.length === 0) return 0;
  ensureDir(join(dir, 'conflicts'));
  const fd = fs.openSync(keptPath, 'wx', FILE_MODE);
  try {
    fs.writeSync(fd, `${cut.join('\n')}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  assertMutexStillHeld(dir);
  const log = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW);
  try {
    fs.ftruncateSync(log, keepBytes);
    fs.fsyncSync(log);
  } finally {
    fs.closeSync(log);
  }
  dropFd(path);
  try {
    fs.unlinkSync(join(dir, SIDECAR));
  } catch {}
  ownSidecars.delete(dir);
  return cut.length;
}

/** Reads all valid events (small logs; large ones should use scanLog). */
export function readAllEvents(dir: string): { events: StoredEvent[]; scan: ScanResult } {
  const events: StoredEvent[] = [];
  const scan = scanLog(join(dir, LOG_FILE), (ev) => events.push(ev));
  return { events, scan };
}

/** Reads the first line only (session.created), without scanning the log. */
export function readFirstEvent(dir: string): StoredEvent | null {
  let fd: number;
  try {
    fd = fs.openSync(join(dir, LOG_FILE), 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    const parts: Buffer[] = [];
    let pos = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) return null;
      pos += n;
      const nl = buf.subarray(0, n).indexOf(10);
      parts.push(Buffer.from(buf.subarray(0, nl >= 0 ? nl : n)));
      if (nl >= 0) break;
      if (pos > MAX_LINE_BYTES) return null;
    }
    const text = Buffer.concat(parts).toString('utf8');
    const ev = JSON.parse(text) as StoredEvent;
    return ev.seq === 1 ? ev : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
