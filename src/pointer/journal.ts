// journal.jsonl (pointer.md): the append-only audit sidecar of state.json, one record a line,
// metadata and a digest only, never the pointer text (a leaked journal leaks no content).
// Who writes: the CAS (cas.ts), under the session mutex, after the state's rename.
// What a crash leaves: at worst a torn last line, which readers count in invalid_lines.
// A failed append never rolls the state back. Rotation: over ROTATE_BYTES the file is
// cut to its last KEEP_LINES lines (atomic replace) before the next append.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { sha256Hex } from '../core/hash.ts';
import { isoSeconds } from '../core/time.ts';
import { appendDurable, writeFileAtomic } from '../store/fsutil.ts';
import type { Observed, PointerState, PointerStatus } from './state.ts';

export const JOURNAL_FILE = 'journal.jsonl';
export const ROTATE_BYTES = 524288;
export const KEEP_LINES = 100;

export interface JournalRecord {
  journal_version: 1;
  session_id: string;
  event: 'PUBLISH' | 'CLEARED';
  revision: number;
  generation: string;
  status: PointerStatus;
  task_id: string | null;
  pointer_digest: string | null;
  pointer_byte_count: number | null;
  previous_revision: number;
  previous_status: PointerStatus | null;
  recorded_at: string;
}

export function pointerDigest(text: string): string {
  return sha256Hex(Buffer.from(text, 'utf8'));
}

/** The record of one successful write: `next` after it, `prev` before it. */
export function journalRecord(prev: Observed, next: PointerState, now: Date): JournalRecord {
  const text = next.pointer_text;
  return {
    journal_version: 1,
    session_id: next.session_id,
    event: next.status === 'CLEARED' ? 'CLEARED' : 'PUBLISH',
    revision: next.revision,
    generation: next.generation,
    status: next.status,
    task_id: next.task_id,
    pointer_digest: text === null ? null : pointerDigest(text),
    pointer_byte_count: text === null ? null : Buffer.byteLength(text, 'utf8'),
    previous_revision: prev.revision,
    previous_status: prev.status,
    recorded_at: isoSeconds(now),
  };
}

export function journalPath(dir: string): string {
  return join(dir, JOURNAL_FILE);
}

/** Cuts the journal to its last KEEP_LINES lines when it is over ROTATE_BYTES. */
export function rotateIfNeeded(dir: string): boolean {
  const path = journalPath(dir);
  let size: number;
  try {
    size = fs.statSync(path).size;
  } catch {
    return false;
  }
  if (size <= ROTATE_BYTES) return false;
  const lines = fs.readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0);
  const kept = lines.slice(-KEEP_LINES);
  writeFileAtomic(path, kept.length ? `${kept.join('\n')}\n` : '', { durable: true });
  return true;
}

/**
 * Rotates when due, then appends one line with one write. Not fsync'd: the same metadata is
 * in the pointer.* event, which the log makes durable; a journal line lost to a power cut
 * shows as a REVISION_GAP. Throws on failure.
 */
export function appendJournal(dir: string, record: JournalRecord): void {
  rotateIfNeeded(dir);
  // A torn last line (a crash mid-append) is closed first, so the new record stays whole.
  const sep = endsTorn(journalPath(dir)) ? '\n' : '';
  appendDurable(journalPath(dir), `${sep}${JSON.stringify(record)}\n`, false);
}

function endsTorn(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, 'r');
    const size = fs.fstatSync(fd).size;
    if (size === 0) return false;
    // allocUnsafe, as the loader uses: Buffer.alloc's first call compiles it in every prompt hook.
    const b = Buffer.allocUnsafe(1);
    return fs.readSync(fd, b, 0, 1, size - 1) !== 1 || b[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export interface StoredRecord {
  record: JournalRecord;
  /** The line as stored (without its newline). */
  line: string;
}

export interface JournalRead {
  records: StoredRecord[];
  invalid_lines: number;
  /** false when there is no journal file: depth 0, not an error. */
  exists: boolean;
}

function isRecord(o: unknown): o is JournalRecord {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return false;
  const r = o as Record<string, unknown>;
  return r.journal_version === 1 && (r.event === 'PUBLISH' || r.event === 'CLEARED') && Number.isSafeInteger(r.revision) && typeof r.status === 'string';
}

/** Parses journal text line by line; a bad line counts in invalid_lines and never stops the read. */
export function parseJournal(text: string): Omit<JournalRead, 'exists'> {
  const records: StoredRecord[] = [];
  let invalid = 0;
  for (const line of text.split('\n')) {
    if (line.trim().length === 0) continue;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      invalid++;
      continue;
    }
    if (isRecord(o)) records.push({ record: o, line });
    else invalid++;
  }
  return { records, invalid_lines: invalid };
}

/** Reads the journal tolerantly: missing is depth 0; unreadable bytes count as invalid lines. */
export function readJournal(dir: string): JournalRead {
  let text: string;
  try {
    text = fs.readFileSync(journalPath(dir), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return { records: [], invalid_lines: 0, exists: false };
    throw e;
  }
  return { ...parseJournal(text), exists: true };
}

/**
 * The journal's last records, reading at most `bytes` from its end (the hook's streak needs
 * only the newest records). `complete` says whether the whole file was read.
 */
export function readJournalTail(dir: string, bytes = 65536): { records: JournalRecord[]; complete: boolean } {
  let fd: number | undefined;
  try {
    fd = fs.openSync(journalPath(dir), 'r');
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.allocUnsafe(size - start); // only the n bytes read are used
    const n = fs.readSync(fd, buf, 0, buf.length, start);
    let text = buf.toString('utf8', 0, n);
    // A read that starts mid-file drops its first, partial line.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return { records: parseJournal(text).records.map((r) => r.record), complete: start === 0 };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return { records: [], complete: true };
    throw e;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
