// Capture: an agent's transcript file into its baton session as `transcript.item` events
// (transcripts.md, "Capture from the hooks", "History import"). The agent's file is the source
// and is only ever read (opened O_RDONLY, never locked, written, renamed or touched); the log
// is the truth of what baton holds. Per (session, agent session, file) a cursor says how far
// the file was read and what it was (inode, a digest of its head), so a crash, a truncated or
// a rewritten file means reading again, and `items.v2.idx` (key → content digest → seq, rebuilt
// from the log when missing or behind it) means an item is appended once whoever captures it:
// the same content is dropped, changed content is appended with `supersedes`. A crash between
// the append and the cursor's write only makes the next run read those lines again.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import type { EventInput, StoredEvent } from '../core/events.ts';
import { sha256Hex } from '../core/hash.ts';
import { redactText } from '../core/redact.ts';
import { isoMillis } from '../core/time.ts';
import { type TranscriptItem, boundItem, itemDigest, itemKey } from '../core/transcript.ts';
import { FILE_MODE, appendDurable, ensureDir, parseSelfChecked, readFileOrNull, selfCheckedText, writeFileAtomic, writeInPlace } from '../store/fsutil.ts';
import { LOG_FILE } from '../store/log.ts';
import type { CreateOptions, FsStore, Writer } from '../store/store.ts';
import { MAX_TRANSCRIPT_LINE, type ParsedChunk, type Skip, newParseState, parseDocument, parseEntries, parseJsonlChunk } from './parse.ts';
import { TRANSCRIPTS_DIR, cursorPath } from './cursor-file.ts';
import type { ParseState, ReaderEnv, TranscriptReader } from './types.ts';

export { cursorPath };

/** One capture run reads at most this much new transcript (transcripts.md: bounded work). */
export const CAPTURE_BUDGET = 1024 * 1024;
/**
 * How an agent's file is opened: read-only, never through a link, and without waiting: a FIFO
 * named like a transcript would block a plain open until something wrote to it (the hook would
 * hang the agent); opened this way it is refused by the regular-file check after the open.
 */
export const AGENT_FILE_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | (fs.constants.O_NONBLOCK ?? 0);
/** A document (a file rewritten whole) larger than this is not read. */
export const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
/** Items per append (one write, one fsync); an import of a long session makes several. */
const APPEND_BATCH = 512;
export const HEAD_BYTES = 4096;
/**
 * `<key> <digest> <seq>` per stored item (loadItemIndex). Its digests are contentDigest's since
 * docs/adr/0088; the file of SHA-256 digests before it, items.idx, is removed when this one is
 * first built (from the log, as after any loss), never read: its digests would not compare.
 */
export const INDEX_FILE = 'items.v2.idx';
const OLD_INDEX_FILE = 'items.idx';
export const RECENT_FILE = 'recent.json';

export interface Cursor {
  v: 1;
  agent: string;
  agent_session: string;
  path: string;
  ino: string;
  size: number;
  mtime_ms: number;
  offset: number;
  line: number;
  head_sha: string;
  /** How many bytes from the start head_sha covers. */
  head_len: number;
  /**
   * The digest of the `tail_len` bytes just before `offset` (when the offset is past the head):
   * a file rewritten with the same head and grown past the old offset fails it and is read again
   * from the start, not from the middle of a line of other content.
   */
  tail_sha?: string;
  tail_len?: number;
  /** A line longer than MAX_TRANSCRIPT_LINE is being skipped: drop bytes up to the next newline. */
  skipping?: boolean;
  state: ParseState;
  skipped: Record<string, number>;
  unknown_version?: string;
  updated_at: string;
}

export interface CaptureRequest {
  store: FsStore;
  sessionId: string;
  reader: TranscriptReader;
  path: string;
  agentSession: string;
  writer: Writer;
  now: Date;
  readerEnv: ReaderEnv;
  /** Bytes of new transcript this run may read (default CAPTURE_BUDGET); Infinity reads to the end. */
  budget?: number;
  /** Nothing more will be written to the file (the agent's session ended; an import of the file): a run that reads it to its end gives out what the reader holds back (JsonlReader.finish). */
  final?: boolean;
  /** The workspace paths are made relative to when the transcript names none. */
  workspace?: string | null;
  /** Makes the session when it does not exist, from what the reader learned of it; without it (or createWith), a missing session is an error. */
  create?: (meta: ParseState['meta']) => void;
  /** Like create, but session.created goes in the same write (and fsync) as the first items (history import). */
  createWith?: (meta: ParseState['meta']) => Omit<CreateOptions, 'id' | 'leaseMs'>;
}

export interface CaptureResult {
  appended: number;
  superseded: number;
  duplicates: number;
  bytes: number;
  /** Lines skipped this run, with their reasons. */
  skips: Skip[];
  /** More is left than the budget let this run read. */
  more: boolean;
  unknownVersion?: string;
  /** Why nothing was read (TR001 outside the agent's store, TR003 not found). */
  refused?: { code: string; message: string };
  meta: ParseState['meta'];
  /** This run went on from a cursor it found (a steady turn end, not a transcript's first capture). */
  fromCursor?: boolean;
}

const empty = (meta: ParseState['meta'] = {}): CaptureResult => ({ appended: 0, superseded: 0, duplicates: 0, bytes: 0, skips: [], more: false, meta });


/** The cursor's text: rewritten in place (see captureOnce), so it checks itself (selfCheckedText). */
export const cursorText = (c: Cursor): string => selfCheckedText(c);

export function readCursor(file: string): Cursor | null {
  const b = readFileOrNull(file);
  if (!b) return null;
  const c = parseSelfChecked(b.toString('utf8')) as unknown as Cursor | null;
  return c?.v === 1 && typeof c.offset === 'number' && c.state ? c : null;
}

/** The readable files of a session's transcripts/ folder whose names end in `suffix`, each as `read` gives it. */
function transcriptFiles<T>(sessionDir: string, suffix: string, read: (path: string) => T | null): T[] {
  let names: string[];
  try {
    names = fs.readdirSync(join(sessionDir, TRANSCRIPTS_DIR));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith(suffix))
    .map((n) => read(join(sessionDir, TRANSCRIPTS_DIR, n)))
    .filter((c): c is T => c !== null);
}

/** Every cursor of a session (doctor counts their skipped lines). */
export function sessionCursors(sessionDir: string): Cursor[] {
  return transcriptFiles(sessionDir, '.cursor.json', readCursor);
}

/** One agent's refused transcripts in a session (`transcripts/<agent>.refused.json`): per code, how often, the last path and when. */
export interface Refusals {
  v: 1;
  agent: string;
  refused: Record<string, { count: number; path: string; at: string }>;
}

const refusalsPath = (sessionDir: string, agent: string): string => join(sessionDir, TRANSCRIPTS_DIR, `${agent}.refused.json`);

function readRefusals(path: string): Refusals | null {
  try {
    const r = JSON.parse(fs.readFileSync(path, 'utf8')) as Refusals;
    return r && r.v === 1 && typeof r.agent === 'string' && r.refused && typeof r.refused === 'object' ? r : null;
  } catch {
    return null;
  }
}

/**
 * Counts a refused transcript (TR001: a path outside the agent's store, or a link out of it) in
 * the session, for `doctor`: the hook's stderr line is easily lost, a count is not. The path is
 * redacted like any text baton stores; a failure to count never fails the hook.
 */
export function recordRefusal(sessionDir: string, agent: string, code: string, path: string, at: string): void {
  try {
    const file = refusalsPath(sessionDir, agent);
    const r = readRefusals(file) ?? { v: 1, agent, refused: {} };
    r.refused[code] = { count: (r.refused[code]?.count ?? 0) + 1, path: redactText(path), at };
    ensureDir(join(sessionDir, TRANSCRIPTS_DIR));
    writeFileAtomic(file, `${JSON.stringify(r)}\n`, { mode: FILE_MODE });
  } catch {}
}

/** Every agent's refused transcripts counted in a session (doctor). */
export function sessionRefusals(sessionDir: string): Refusals[] {
  return transcriptFiles(sessionDir, '.refused.json', readRefusals);
}

const within = (p: string, root: string): boolean => p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);

/**
 * The real path of a transcript when it lies inside one of the agent's store folders (links
 * resolved on both sides); null when it is outside them, or a link out of them.
 */
export function insideStore(path: string, roots: readonly string[]): string | null {
  let real: string;
  try {
    real = fs.realpathSync.native(path);
  } catch {
    return null;
  }
  for (const r of roots) {
    let root: string;
    try {
      root = fs.realpathSync.native(r);
    } catch {
      continue;
    }
    if (within(real, root)) return real;
  }
  return null;
}

interface ItemIndex {
  /** The stored digest and seq of each wanted key that is stored. */
  byKey: Map<string, { digest: string; seq: number }>;
  /** Lines of items the log holds and items.v2.idx did not (lost lines, a missing file): written back with the next lines. */
  missing: string[];
  /** items.v2.idx no longer describes the log (the log was replaced): rewritten whole, not appended to. */
  rewrite: boolean;
  /** items.v2.idx ends in a torn line (a crash mid-append): the next append starts on a line of its own. */
  torn: boolean;
  /** There was no index file: built from the log now. */
  absent: boolean;
}

/** The last complete line of `text` (up to `end`, a newline's index + 1) that starts with `prefix`; null when none. */
function lastLineStarting(text: string, prefix: string, end: number): string | null {
  let at = text.lastIndexOf(`\n${prefix}`, end - 1 - prefix.length);
  if (at >= 0) at++;
  else if (text.startsWith(prefix) && prefix.length < end) at = 0;
  else return null;
  return text.slice(at, text.indexOf('\n', at));
}

/**
 * What items.v2.idx (`<key> <digest> <seq>` per stored item, `@ <log bytes>` after each batch) and
 * the log past it say of the `wanted` keys only: a capture of a few items in a session of
 * 100,000 looks each key up (native string searches) instead of reading every line into a
 * map. The last line of a key is its current record. Caller holds the mutex.
 */
function loadItemIndex(sessionDir: string, wanted: ReadonlySet<string>, fromStart = false): ItemIndex {
  let logBytes = 0;
  const b = readFileOrNull(join(sessionDir, TRANSCRIPTS_DIR, INDEX_FILE));
  const idx: ItemIndex = { byKey: new Map(), missing: [], rewrite: false, torn: false, absent: b === null };
  if (b) {
    // ASCII only (hex keys and digests, digits): latin1 is the cheapest decoding.
    const text = b.toString('latin1');
    // A torn last line (no newline) is not read: the log scan below covers it.
    const end = text.lastIndexOf('\n') + 1;
    idx.torn = end < text.length;
    const mark = lastLineStarting(text, '@ ', end);
    if (mark !== null) logBytes = Number(mark.slice(2)) || 0;
    for (const key of wanted) {
      const line = lastLineStarting(text, `${key} `, end);
      if (line === null) continue;
      const [, digest, seq] = line.split(' ');
      if (digest && seq) idx.byKey.set(key, { digest, seq: Number(seq) });
    }
  }
  // The index is a projection: whatever the log holds past what it has seen is folded in.
  const logPath = join(sessionDir, LOG_FILE);
  let size = 0;
  try {
    size = fs.statSync(logPath).size;
  } catch {
    return idx;
  }
  // The log is never shorter than before unless replaced (an import); and a re-read of a file
  // from its start is what a lost or damaged index line would turn into a duplicate: both rebuild
  // the index from the log (a re-read is rare: a rewritten file, a lost cursor).
  if (size < logBytes || (fromStart && idx.byKey.size > 0 && logBytes > 0)) {
    idx.byKey.clear();
    idx.rewrite = true;
    logBytes = 0;
  }
  if (size > logBytes) foldLogItems(logPath, logBytes, size, idx, wanted);
  return idx;
}

function foldLogItems(logPath: string, from: number, to: number, idx: ItemIndex, wanted: ReadonlySet<string>): void {
  const fd = fs.openSync(logPath, 'r');
  try {
    const CHUNK = 4 * 1024 * 1024;
    let carry = '';
    let pos = from;
    const buf = Buffer.allocUnsafe(CHUNK);
    while (pos < to) {
      const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, to - pos), pos);
      if (n <= 0) break;
      pos += n;
      const text = carry + buf.toString('utf8', 0, n);
      const lines = text.split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('"type":"transcript.item"')) continue;
        try {
          const ev = JSON.parse(line) as StoredEvent;
          if (ev.type !== 'transcript.item') continue;
          const item = ev.payload as unknown as TranscriptItem;
          const key = itemKey(item);
          const digest = itemDigest(item);
          idx.missing.push(`${key} ${digest} ${ev.seq}\n`);
          if (wanted.has(key)) idx.byKey.set(key, { digest, seq: ev.seq });
        } catch {
          // a torn line: not acknowledged, not an item
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

export const actorOf = (role: TranscriptItem['role']): EventInput['actor'] => (role === 'user' ? 'user' : role === 'system' ? 'system' : 'agent');

/** What the agent's file holds past the cursor, read without writing it. */
interface Read {
  chunk: ParsedChunk;
  cursor: Cursor;
  bytes: number;
  more: boolean;
}

function freshCursor(req: CaptureRequest, st: fs.BigIntStats): Cursor {
  return {
    v: 1,
    agent: req.reader.agent,
    agent_session: req.agentSession,
    path: req.path,
    ino: String(st.ino),
    size: 0,
    mtime_ms: 0,
    offset: 0,
    line: 1,
    head_sha: '',
    head_len: 0,
    state: newParseState(),
    skipped: {},
    updated_at: isoMillis(req.now),
  };
}

function readPast(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let n = 0;
  while (n < length) {
    const r = fs.readSync(fd, buf, n, length - n, offset + n);
    if (r === 0) break;
    n += r;
  }
  return n === length ? buf : buf.subarray(0, n);
}

/** The bytes before a cursor's offset its tail digest covers. */
const TAIL_BYTES = 1024;

/** The tail fields of a cursor at `end`: the digest of the bytes before it, from `window` (read from `start`) when it holds them. */
export function tailOf(fd: number, end: number, window: Buffer, start: number): { tail_sha?: string; tail_len?: number } {
  if (end <= HEAD_BYTES) return { tail_sha: undefined, tail_len: undefined };
  const len = Math.min(TAIL_BYTES, end);
  const bytes = end - len >= start && end - start <= window.length ? window.subarray(end - len - start, end - start) : readPast(fd, end - len, len);
  return { tail_sha: sha256Hex(bytes), tail_len: bytes.length };
}

export const headOf = (bytes: Buffer): { head_sha: string; head_len: number } => {
  const head = bytes.subarray(0, HEAD_BYTES);
  return { head_sha: head.length ? sha256Hex(head) : '', head_len: head.length };
};

function readNew(req: CaptureRequest, fd: number, prev: Cursor | null): Read {
  const st = fs.fstatSync(fd, { bigint: true });
  const size = Number(st.size);
  let cursor = prev && prev.ino === String(st.ino) && prev.offset <= size ? prev : freshCursor(req, st);
  let headSeen = false;
  if (cursor.offset > 0 && cursor.head_sha) {
    const head = readPast(fd, 0, cursor.head_len);
    // Rewritten in place (same inode, other bytes): read it again from the start.
    if (sha256Hex(head) !== cursor.head_sha) cursor = freshCursor(req, st);
    else headSeen = true;
  }
  // The same head, other bytes before the offset (rewritten and grown past it): from the start too.
  if (headSeen && cursor.tail_sha && cursor.tail_len && cursor.offset > cursor.head_len && sha256Hex(readPast(fd, cursor.offset - cursor.tail_len, cursor.tail_len)) !== cursor.tail_sha) {
    cursor = freshCursor(req, st);
    headSeen = false;
  }
  cursor = { ...cursor, size, mtime_ms: Number(st.mtimeMs), updated_at: isoMillis(req.now) };
  const budget = req.budget ?? CAPTURE_BUDGET;
  const state = cursor.state;

  if (req.reader.format === 'document') {
    if (prev && prev.ino === cursor.ino && prev.size === size && prev.mtime_ms === cursor.mtime_ms && prev.offset === size) {
      return { chunk: { items: [], skips: [], consumed: 0, lines: 0 }, cursor: prev, bytes: 0, more: false };
    }
    if (size > MAX_DOCUMENT_BYTES) {
      return { chunk: { items: [], skips: [{ line: 0, reason: 'document too large' }], consumed: 0, lines: 0 }, cursor: { ...cursor, offset: size }, bytes: 0, more: false };
    }
    const bytes = readPast(fd, 0, size);
    const chunk = parseDocument(req.reader, bytes, state);
    // An incomplete document (the agent is writing it) is read again next time, not counted.
    const incomplete = chunk.skips.length === 1 && chunk.skips[0].reason === 'incomplete or not JSON';
    return { chunk: incomplete ? { ...chunk, skips: [] } : chunk, cursor: { ...cursor, offset: incomplete ? 0 : size, ...headOf(incomplete ? Buffer.alloc(0) : bytes) }, bytes: size, more: false };
  }

  let offset = cursor.offset;
  let skipping = cursor.skipping === true;
  const skips: Skip[] = [];
  if (skipping) {
    // Drop the rest of an oversized line, up to its newline, within the budget.
    const window = readPast(fd, offset, Math.min(budget, size - offset));
    const nl = window.indexOf(10);
    if (nl < 0) {
      const next = offset + window.length;
      return { chunk: { items: [], skips: [], consumed: 0, lines: 0 }, cursor: { ...cursor, offset: next, ...tailOf(fd, next, window, offset), skipping: true }, bytes: window.length, more: next < size };
    }
    offset += nl + 1;
    skipping = false;
    cursor = { ...cursor, line: cursor.line + 1 };
  }
  let want = Math.min(budget, size - offset);
  let window = readPast(fd, offset, want);
  if (window.length > 0 && window.lastIndexOf(10) < 0 && offset + window.length < size) {
    // One line longer than the budget: read on to its end, up to the line limit.
    want = Math.min(MAX_TRANSCRIPT_LINE + 1, size - offset);
    window = readPast(fd, offset, want);
    if (window.indexOf(10) < 0 && window.length > MAX_TRANSCRIPT_LINE) {
      skips.push({ line: cursor.line, reason: 'line too large' });
      const next = offset + window.length;
      return { chunk: { items: [], skips, consumed: 0, lines: 0 }, cursor: { ...cursor, offset: next, ...tailOf(fd, next, window, offset), skipping: true }, bytes: window.length, more: next < size };
    }
  }
  if (req.reader.format !== 'jsonl') throw new Error(`${req.reader.agent}'s transcripts are not a file baton reads`);
  const chunk = parseJsonlChunk(req.reader, window, cursor.line, state);
  chunk.skips.unshift(...skips);
  const end = offset + chunk.consumed;
  // A full head the cursor had, and that was just found unchanged, is not read and hashed again.
  const head = headSeen && cursor.head_len === HEAD_BYTES ? { head_sha: cursor.head_sha, head_len: cursor.head_len } : headOf(readPast(fd, 0, Math.min(HEAD_BYTES, end)));
  // Nothing read: the tail the cursor has is still the bytes before its offset.
  const tail = end === cursor.offset && cursor.tail_sha ? { tail_sha: cursor.tail_sha, tail_len: cursor.tail_len } : tailOf(fd, end, window, offset);
  return {
    chunk,
    cursor: { ...cursor, offset: end, line: cursor.line + chunk.lines, ...head, ...tail, skipping: false, ...(chunk.unknownVersion ? { unknown_version: chunk.unknownVersion } : {}) },
    bytes: chunk.consumed,
    more: !chunk.unknownVersion && end < size && chunk.consumed > 0 && window.length >= budget,
  };
}

/**
 * Reads what the agent's transcript holds past the cursor (at most the budget) and appends its
 * new items to the session. Never throws for the agent's file being odd: those are skips and
 * refusals in the result. Store errors (a full disk, a corrupt log) do throw: the caller says
 * so on one stderr line and the cursor stays where it was.
 */
export function captureOnce(req: CaptureRequest): CaptureResult {
  if (req.reader.format === 'payload') return { ...empty(), refused: { code: 'TR003', message: `${req.reader.agent} keeps its sessions in a database: its items come in the hook's payload or through baton history import` } };
  const roots = req.reader.roots(req.readerEnv);
  const real = insideStore(req.path, roots);
  if (real === null) {
    const exists = fs.existsSync(req.path);
    return {
      ...empty(),
      refused: exists
        ? { code: 'TR001', message: `${req.path} is outside ${req.reader.agent}'s store (${roots.join(', ') || 'none found'}) or a link out of it; not read` }
        : { code: 'TR003', message: `no transcript at ${req.path}` },
    };
  }
  const sessionDir = req.store.dir(req.sessionId);
  const cfile = cursorPath(sessionDir, req.reader.agent, req.agentSession, req.path);
  // An import (req.create) also keeps the cursor of a file that gave no item yet, in a folder without a log.
  const prev = req.store.exists(req.sessionId) || req.create || req.createWith ? readCursor(cfile) : null;
  let fd: number;
  try {
    fd = fs.openSync(real, AGENT_FILE_FLAGS);
  } catch (e) {
    return { ...empty(), refused: { code: 'TR003', message: `cannot read ${req.path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` } };
  }
  let read: Read;
  try {
    if (!fs.fstatSync(fd).isFile()) return { ...empty(), refused: { code: 'TR003', message: `${req.path} is not a file` } };
    read = readNew(req, fd, prev);
  } finally {
    fs.closeSync(fd);
  }
  const { chunk, cursor } = read;
  // Only a run that read the file to its very end: an unterminated last line is still being written.
  if (req.final && cursor.offset >= cursor.size && req.reader.format === 'jsonl' && req.reader.finish && !chunk.unknownVersion) {
    for (const raw of req.reader.finish(cursor.state)) chunk.items.push({ raw, line: cursor.line });
  }
  for (const s of chunk.skips) cursor.skipped[s.reason] = (cursor.skipped[s.reason] ?? 0) + 1;
  const meta = cursor.state.meta;
  const result: CaptureResult = { ...empty(meta), bytes: read.bytes, skips: chunk.skips, more: read.more, unknownVersion: chunk.unknownVersion, fromCursor: prev !== null };
  if (!req.store.exists(req.sessionId)) {
    if (!req.create && !req.createWith) return { ...result, refused: { code: 'WS001', message: `session ${req.sessionId} not found` } };
    // A run with nothing to hold (a header-only stub, a file in an unknown format version) makes
    // no empty session: the cursor alone remembers how far the file was read.
    if (chunk.items.length && req.create) req.create(meta);
  }
  const nowIso = isoMillis(req.now);
  const workspace = meta.cwd ?? req.workspace ?? null;
  const items = chunk.items.map(({ raw }) => {
    return boundItem(req.reader.agent, req.agentSession, raw, { workspace, now: nowIso });
  });
  // A read from the file's start that finds items the index knows is a re-read (a rewritten file, a
  // lost cursor): the index is then rebuilt from the log, not trusted line by line.
  if (items.length) appendItems(req, items, result, meta, read.cursor.offset - read.bytes <= 0);
  // Nothing read and nothing learned: the cursor on disk says it already (no write at all).
  const same = (c: Cursor): string => JSON.stringify({ ...c, updated_at: '' });
  if (prev && read.bytes === 0 && chunk.skips.length === 0 && same(prev) === same(cursor)) return result;
  ensureDir(join(sessionDir, TRANSCRIPTS_DIR));
  // In place, not by a rename: a rename over the old cursor makes ext4 flush it (~1 ms of every
  // capture). A torn cursor (a crash mid-write, a reader racing the write) fails its check and
  // means reading the file again from its start, each item dropped by items.v2.idx: never a lost item.
  writeInPlace(cfile, cursorText(cursor));
  return result;
}

/**
 * The items of entries handed over whole (baton's own plugin sends opencode's and Kilo's new
 * messages in the idle payload; history import reads them from the agent's database): no
 * cursor, idempotence alone decides what is new.
 */
export function captureEntries(req: Omit<CaptureRequest, 'path' | 'budget'>, entries: unknown, meta: ParseState['meta'] = {}): CaptureResult {
  if (req.reader.format !== 'payload') throw new Error(`${req.reader.agent}'s transcripts are files`);
  const state: ParseState = { meta: { ...meta }, own: {} };
  const chunk = parseEntries(req.reader, entries, state);
  const result: CaptureResult = { ...empty(state.meta), skips: chunk.skips, unknownVersion: chunk.unknownVersion };
  if (!req.store.exists(req.sessionId)) {
    if (!req.create && !req.createWith) return { ...result, refused: { code: 'WS001', message: `session ${req.sessionId} not found` } };
    req.create?.(state.meta);
  }
  const nowIso = isoMillis(req.now);
  const workspace = state.meta.cwd ?? req.workspace ?? null;
  const items = chunk.items.map(({ raw }) => {
    return boundItem(req.reader.agent, req.agentSession, raw, { workspace, now: nowIso });
  });
  if (items.length) appendItems(req, items, result, state.meta);
  return result;
}

/** Appends the items not yet stored (idempotence by items.v2.idx), under the session mutex, and the recent projection. */
function appendItems(req: Omit<CaptureRequest, 'path' | 'budget'>, items: TranscriptItem[], result: CaptureResult, meta: ParseState['meta'], fromStart = false): void {
  const creating = req.createWith && !req.store.exists(req.sessionId) ? req.createWith(meta) : null;
  if (creating) req.store.prepareSession(req.sessionId);
  const dir = req.store.writeDir(req.sessionId);
  const tdir = join(dir, TRANSCRIPTS_DIR);
  ensureDir(tdir);
  let created: StoredEvent[] = [];
  const stored = req.store.locked(req.sessionId, () => {
    // One hash pass per item: its key and digest serve the look-up and the index lines.
    const keys = items.map(itemKey);
    const idx = loadItemIndex(dir, new Set(keys), fromStart);
    const fresh: TranscriptItem[] = [];
    const freshKeys: string[] = [];
    const freshDigests: string[] = [];
    // An item read more than once in this run (the agent wrote it again, changed or not) is
    // taken once, at its first place, with its last content: what the transcript says now.
    const last = new Map<string, number>();
    for (let j = 0; j < items.length; j++) last.set(keys[j], j);
    const taken = new Set<string>();
    for (let j = 0; j < items.length; j++) {
      const key = keys[j];
      if (taken.has(key)) {
        result.duplicates++;
        continue;
      }
      taken.add(key);
      const item = items[last.get(key) as number];
      const digest = itemDigest(item);
      const had = idx.byKey.get(key);
      if (had && had.digest === digest) {
        result.duplicates++;
        continue;
      }
      if (had) {
        item.supersedes = had.seq;
        result.superseded++;
      }
      fresh.push(item);
      freshKeys.push(key);
      freshDigests.push(digest);
    }
    const idxPath = join(tdir, INDEX_FILE);
    if (idx.absent) {
      try {
        fs.unlinkSync(join(tdir, OLD_INDEX_FILE));
      } catch {}
    }
    // Lines of the log's items items.v2.idx lacked go back in first (a lost line is found once, not on every run).
    let pending = `${idx.torn ? '\n' : ''}${idx.missing.join('')}`;
    if (idx.rewrite) {
      // Not fsync'd, like the appends below: a projection of the log.
      writeFileAtomic(idxPath, `${pending}@ ${fs.statSync(join(dir, LOG_FILE)).size}\n`, { mode: FILE_MODE });
      pending = '';
    }
    const out: StoredEvent[] = [];
    for (let i = 0; i < fresh.length; i += APPEND_BATCH) {
      const batch = fresh.slice(i, i + APPEND_BATCH);
      // boundItem redacted every string of the item (before bounding it): the append need not scan it again.
      const inputs: EventInput[] = batch.map((item) => ({ type: 'transcript.item', surface: req.writer.surface, actor: actorOf(item.role), payload: item as unknown as Record<string, unknown>, preRedacted: true }));
      let events: StoredEvent[] | null = null;
      if (i === 0 && creating) {
        // The session and its first items: one write, one fsync (null: another process made it meanwhile).
        const all = req.store.ensureWithUnderMutex(req.sessionId, creating, inputs);
        if (all) {
          created = all.slice(0, 1);
          events = all.slice(1);
        }
      }
      events ??= req.store.appendUnderMutex(req.sessionId, inputs, req.writer);
      out.push(...events);
      const logBytes = fs.statSync(join(dir, LOG_FILE)).size;
      // The append returns one event per input, in order.
      const lines = events.map((e, j) => `${freshKeys[i + j]} ${freshDigests[i + j]} ${e.seq}\n`);
      // Not fsync'd: a lost line is folded back in from the log (loadItemIndex) and written again.
      appendDurable(idxPath, `${pending}${lines.join('')}@ ${logBytes}\n`, false);
      pending = '';
    }
    if (pending) appendDurable(idxPath, `${pending}@ ${fs.statSync(join(dir, LOG_FILE)).size}\n`, false);
    if (out.length) updateRecent(tdir, out);
    return out;
  });
  result.appended = stored.length;
  if (stored.length) req.store.afterAppend(req.sessionId, [...created, ...stored], created.length > 0);
}

/** The handoff's and the picker's projection: the last requests, conclusions and files, without a fold of the log. */
export interface Recent {
  v: 1;
  items: number;
  last_agent: string | null;
  last_agent_session: string | null;
  last_at: string | null;
  users: RecentLine[];
  assistants: RecentLine[];
  files: { path: string; seq: number; at: string }[];
}
export interface RecentLine {
  seq: number;
  at: string;
  agent: string;
  text: string;
}
const RECENT_LINES = 12;
const RECENT_TEXT = 600;
const RECENT_FILES = 64;

export function readRecent(sessionDir: string): Recent | null {
  const b = readFileOrNull(join(sessionDir, TRANSCRIPTS_DIR, RECENT_FILE));
  const r = b && (parseSelfChecked(b.toString('utf8')) as unknown as Recent | null);
  return r?.v === 1 ? r : null;
}

export function foldRecent(r: Recent, events: readonly StoredEvent[]): Recent {
  for (const e of events) {
    if (e.type !== 'transcript.item') continue;
    const it = e.payload as unknown as TranscriptItem;
    r.items++;
    r.last_agent = it.agent;
    r.last_agent_session = it.agent_session;
    r.last_at = it.at;
    const line = { seq: e.seq, at: it.at, agent: it.agent, text: it.text.length > RECENT_TEXT ? `${it.text.slice(0, RECENT_TEXT)}…` : it.text };
    if (it.kind === 'message' && it.role === 'user' && it.text.trim()) r.users = [...r.users, line].slice(-RECENT_LINES);
    if (it.kind === 'message' && it.role === 'assistant' && it.text.trim()) r.assistants = [...r.assistants, line].slice(-RECENT_LINES);
    for (const f of it.files ?? []) r.files = [...r.files.filter((x) => x.path !== f), { path: f, seq: e.seq, at: it.at }].slice(-RECENT_FILES);
  }
  return r;
}

export const emptyRecent = (): Recent => ({ v: 1, items: 0, last_agent: null, last_agent_session: null, last_at: null, users: [], assistants: [], files: [] });

function updateRecent(tdir: string, events: StoredEvent[]): void {
  const sessionDir = join(tdir, '..');
  // Missing or unreadable: rebuilt from the log once (the events just written are in it).
  const prev = readRecent(sessionDir);
  const next = prev ? foldRecent(prev, events) : rebuildRecent(sessionDir);
  try {
    // In place, as the cursor (a rename over it made ext4 flush it: ~0.5 ms of every capture).
    writeInPlace(join(tdir, RECENT_FILE), selfCheckedText(next));
  } catch {
    // A projection: the next capture, or a reader, rebuilds it.
  }
}

/** The recent projection from the whole log (when it is missing). */
export function rebuildRecent(sessionDir: string): Recent {
  const r = emptyRecent();
  const b = readFileOrNull(join(sessionDir, LOG_FILE));
  if (!b) return r;
  const text = b.toString('utf8');
  const evs: StoredEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"type":"transcript.item"')) continue;
    try {
      evs.push(JSON.parse(line) as StoredEvent);
    } catch {}
  }
  return foldRecent(r, evs);
}
