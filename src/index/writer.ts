// Writing projected sessions into the index: the one place that knows the table layout.
// Callers hold a transaction. The search rows of a session live at rowids
// num * 2^32 + seq, so re-projecting a session deletes one rowid range.
// A listing's catch-up (deferTexts) appends its search chunks to text_pending instead of
// event_text: rowids spread over every session cost FTS5 about as many page writes (and
// fsyncs at the checkpoint) as the sessions themselves. Whatever reads or changes
// event_text first moves text_pending into it (flushPending), in rowid order.
import type { Db } from './db.ts';
import type { LogStat } from './logread.ts';
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import type { StoredEvent } from '../core/events.ts';
import type { PointerOp, SessionRow, TextOp } from './project.ts';
import { type Chunk, TextBuffer, chunkColumns, parseList } from './chunks.ts';
import { POINTER_SLOT, POINTER_TYPE, laterPointer, pointerChunk } from './pointer-text.ts';
import { eventText, presentedText } from './project.ts';

const SPAN = 2 ** 32;
/** Chunks text_pending may hold before a listing moves them into event_text itself. */
const PENDING_MAX = 5000;

export interface StoredRow {
  num: number;
  row: SessionRow;
  stat: LogStat;
}

/**
 * The sessions table's columns as the readers select them, in this order, as arrays
 * (better-sqlite3's `.raw()`): an object row is made in C++ one property at a time through
 * V8's generic path, ~60 k instructions a row of 22 columns, against ~10 k for an array (a
 * listing reads a row per session it catches up, and one per row it prints; docs/adr/0085).
 */
export const ROW_COLUMNS =
  'num, id, title, title_seq, cwd, git_root, created_at, last_touched_at, events, last_seq, last_h, archived, lease_until, pointer_status, open_episodes, redactions, corrupt, log_offset, line_start, log_size, log_ctime, log_ino';

/** A row selected as ROW_COLUMNS. */
export type RawRow = [
  num: number,
  id: string,
  title: string,
  title_seq: number,
  cwd: string | null,
  git_root: string | null,
  created_at: string,
  last_touched_at: string,
  events: number,
  last_seq: number,
  last_h: string,
  archived: number,
  lease_until: string | null,
  pointer_status: string | null,
  open_episodes: string,
  redactions: string,
  corrupt: string | null,
  log_offset: number,
  line_start: number,
  log_size: number,
  log_ctime: string,
  log_ino: string,
];

// Field by field into a literal: TypeScript checks the literal holds every SessionRow field,
// and V8 gives every row the same shape (docs/adr/0083).
export function rowFromRaw(r: RawRow): SessionRow {
  return {
    id: r[1],
    title: r[2],
    title_seq: r[3],
    cwd: r[4],
    git_root: r[5],
    created_at: r[6],
    last_touched_at: r[7],
    events: r[8],
    last_seq: r[9],
    last_h: r[10],
    archived: r[11] === 1,
    lease_until: r[12],
    pointer_status: r[13],
    open_episodes: JSON.parse(r[14]),
    redactions: JSON.parse(r[15]),
    corrupt: r[16] ? JSON.parse(r[16]) : null,
    log_offset: r[17],
    line_start: r[18],
  };
}

export const UPSERT_SQL = `INSERT INTO sessions (num, id, title, title_seq, cwd, git_root, created_at, last_touched_at, events, last_seq, last_h,
    archived, lease_until, pointer_status, open_episodes, redactions, corrupt, log_offset, line_start, log_size, log_ctime, log_ino)
  VALUES (@num, @id, @title, @title_seq, @cwd, @git_root, @created_at, @last_touched_at, @events, @last_seq, @last_h,
    @archived, @lease_until, @pointer_status, @open_episodes, @redactions, @corrupt, @log_offset, @line_start, @log_size, @log_ctime, @log_ino)
  ON CONFLICT (num) DO UPDATE SET title = excluded.title, title_seq = excluded.title_seq, cwd = excluded.cwd, git_root = excluded.git_root,
    created_at = excluded.created_at, last_touched_at = excluded.last_touched_at, events = excluded.events, last_seq = excluded.last_seq,
    last_h = excluded.last_h, archived = excluded.archived, lease_until = excluded.lease_until, pointer_status = excluded.pointer_status,
    open_episodes = excluded.open_episodes, redactions = excluded.redactions, corrupt = excluded.corrupt, log_offset = excluded.log_offset, line_start = excluded.line_start,
    log_size = excluded.log_size, log_ctime = excluded.log_ctime, log_ino = excluded.log_ino`;

/**
 * A caught-up row whose workspace and creation cannot have changed (an extension of what
 * was indexed): cwd, git_root and created_at are left out of SET, so SQLite leaves the
 * workspace index alone (it rewrites an index whenever one of its columns is SET).
 */
const UPDATE_SQL = `UPDATE sessions SET title = @title, title_seq = @title_seq, last_touched_at = @last_touched_at, events = @events,
    last_seq = @last_seq, last_h = @last_h, archived = @archived, lease_until = @lease_until, pointer_status = @pointer_status,
    open_episodes = @open_episodes, redactions = @redactions, corrupt = @corrupt, log_offset = @log_offset, line_start = @line_start,
    log_size = @log_size, log_ctime = @log_ctime, log_ino = @log_ino WHERE num = @num`;

export const INSERT_TEXT_SQL = 'INSERT INTO event_text (rowid, text, seqs, offs, types) VALUES (?, ?, ?, ?, ?)';

export function textRowid(num: number, seq: number): number {
  return num * SPAN + seq;
}

/** UPDATE_SQL's parameters: every column but the session's identity (id, cwd, git_root, created_at). */
function updateParams(num: number, row: SessionRow, stat: LogStat): Record<string, string | number | null> {
  return {
    num,
    title: row.title,
    title_seq: row.title_seq,
    last_touched_at: row.last_touched_at,
    events: row.events,
    last_seq: row.last_seq,
    last_h: row.last_h,
    archived: row.archived ? 1 : 0,
    lease_until: row.lease_until,
    pointer_status: row.pointer_status,
    open_episodes: JSON.stringify(row.open_episodes),
    redactions: JSON.stringify(row.redactions),
    corrupt: row.corrupt ? JSON.stringify(row.corrupt) : null,
    log_offset: row.log_offset,
    line_start: row.line_start,
    log_size: stat.size,
    log_ctime: stat.ctime,
    log_ino: stat.ino,
  };
}

/** UPSERT_SQL's parameters: every column of a sessions row. */
export function rowParams(num: number, row: SessionRow, stat: LogStat): Record<string, string | number | null> {
  const p = updateParams(num, row, stat);
  p.id = row.id;
  p.cwd = row.cwd;
  p.git_root = row.git_root;
  p.created_at = row.created_at;
  return p;
}

export class IndexWriter {
  private readonly db: Db;
  private readonly upsertStmt;
  private readonly updateStmt;
  private readonly insertText;
  private readonly selectText;
  private readonly pointerRow;
  private readonly updateText;
  private readonly deleteTexts;
  private readonly loadStmt;
  private readonly maxNum;
  private readonly deleteSessionStmt;
  private readonly conflictStmt;
  private readonly pendingInsert;
  private readonly pendingCount;
  private readonly deletePending;
  private readonly deferTexts: boolean;
  private next = 0;

  constructor(db: Db, opts: { deferTexts?: boolean } = {}) {
    this.db = db;
    this.deferTexts = !!opts.deferTexts;
    this.pendingInsert = db.prepare('INSERT INTO text_pending (rid, text, seqs, offs, types) VALUES (?, ?, ?, ?, ?)');
    this.pendingCount = db.prepare('SELECT count(*) FROM text_pending').pluck();
    this.deletePending = db.prepare('DELETE FROM text_pending WHERE rid >= ? AND rid < ?');
    this.upsertStmt = db.prepare(UPSERT_SQL);
    this.updateStmt = db.prepare(UPDATE_SQL);
    this.insertText = db.prepare(INSERT_TEXT_SQL);
    this.pointerRow = db.prepare('SELECT types FROM event_text WHERE rowid = ?').pluck();
    this.selectText = db.prepare('SELECT rowid AS rid, seqs, offs, types FROM event_text WHERE rowid >= ? AND rowid <= ? ORDER BY rowid DESC LIMIT 1');
    this.updateText = db.prepare('DELETE FROM event_text WHERE rowid = ?');
    this.deleteTexts = db.prepare('DELETE FROM event_text WHERE rowid >= ? AND rowid < ?');
    this.loadStmt = db.prepare(`SELECT ${ROW_COLUMNS} FROM sessions WHERE id = ?`).raw();
    this.maxNum = db.prepare('SELECT max(num) FROM sessions').pluck();
    this.deleteSessionStmt = db.prepare('DELETE FROM sessions WHERE num = ?');
    this.conflictStmt = db.prepare('INSERT INTO conflicts (session, detected_at, indexed_seq, indexed_h, detail) VALUES (?, ?, ?, ?, ?)');
  }

  newNum(): number {
    if (this.next === 0) this.next = ((this.maxNum.get() as number | null) ?? 0) + 1;
    return this.next++;
  }

  load(id: string): StoredRow | null {
    const r = this.loadStmt.get(id) as RawRow | undefined;
    if (!r) return null;
    return { num: r[0], row: rowFromRaw(r), stat: { size: r[19], ctime: r[20], ino: r[21] } };
  }

  upsert(num: number, row: SessionRow, stat: LogStat): void {
    this.upsertStmt.run(rowParams(num, row, stat));
  }

  /** The row of an indexed session extended by its new lines (see UPDATE_SQL). */
  extend(num: number, row: SessionRow, stat: LogStat): void {
    // Only UPDATE_SQL's parameters (deleting the others from rowParams' object made it a
    // dictionary: ~9 k instructions a delete on every session a read catches up).
    this.updateStmt.run(updateParams(num, row, stat));
  }

  private deferred: [number, string, string, string, string][] = [];

  /**
   * Writes a session's chunk of texts (chunks.ts). `defer` holds it until flushChunks:
   * FTS5 flushes its term buffer into a new segment whenever a rowid is not above the last
   * one written, so a catch-up touching sessions in any order inserts in rowid order.
   */
  chunk(num: number, c: Chunk, defer = false): void {
    const rid = textRowid(num, c.slot ?? c.seqs[0]);
    if (defer) this.deferred.push([rid, ...chunkColumns(c)]);
    else this.insertText.run(rid, ...chunkColumns(c));
  }

  flushChunks(): void {
    this.deferred.sort((a, b) => a[0] - b[0]);
    const into = this.deferTexts ? this.pendingInsert : this.insertText;
    for (const r of this.deferred) into.run(...r);
    this.deferred = [];
    if (this.deferTexts && (this.pendingCount.get() as number) > PENDING_MAX) this.flushPending();
  }

  /** Moves the chunks a listing left in text_pending into event_text (rowid order). */
  flushPending(): void {
    if (this.pendingCount.get() === 0) return;
    this.db.exec('INSERT INTO event_text (rowid, text, seqs, offs, types) SELECT rid, text, seqs, offs, types FROM text_pending ORDER BY rid; DELETE FROM text_pending');
  }

  /**
   * A `session redact` of texts already written: each chunk holding one of the seqs is
   * re-read from the log (the index holds no text), every pattern for each of its events
   * applied, and the chunk replaced.
   */
  redact(num: number, seqs: number[], logPath: string, redactions: Record<string, string[]>): void {
    this.flushPending(); // the chunks to redact may still be pending
    const done = new Set<number>();
    for (const seq of seqs) {
      if (!Number.isInteger(seq) || seq < 1 || done.has(seq)) continue;
      const at = this.selectText.get(num * SPAN, num * SPAN + seq) as { rid: number; seqs: string; offs: string; types: string } | undefined;
      if (!at) continue;
      const cs = parseList(at.seqs);
      if (!cs.includes(seq)) continue;
      const offs = parseList(at.offs);
      const types = at.types.split(',');
      const c: Chunk = { seqs: [], offs: [], types: [], texts: [] };
      cs.forEach((s, i) => {
        done.add(s);
        const text = textAt(logPath, offs[i], s);
        if (text === null) return;
        c.seqs.push(s);
        c.offs.push(offs[i]);
        c.types.push(types[i]);
        c.texts.push(presentedText(text, redactions[s]));
      });
      this.updateText.run(at.rid);
      if (c.seqs.length) this.chunk(num, c, true);
    }
  }

  /** Applies the text operations of one catch-up: texts held in a buffer, redactions of written ones at once. */
  textSink(num: number, logPath: string, row: SessionRow): { op: (op: TextOp) => void; flush: () => void } {
    const buf = new TextBuffer();
    let pointer: PointerOp | null = null;
    return {
      op: (op) => {
        if (op.kind === 'text') buf.add({ seq: op.seq, type: op.type, text: presentedText(op.text, row.redactions[op.seq]), off: op.off });
        else if (op.kind === 'pointer') pointer = laterPointer(pointer, op);
        else {
          const missing = buf.redact(op.seqs, op.pattern);
          if (missing.length) this.redact(num, missing, logPath, row.redactions);
        }
      },
      flush: () => {
        for (const c of buf.chunks()) this.chunk(num, c, true);
        if (pointer) this.pointer(num, dirname(logPath), row.id, pointer);
      },
    };
  }

  /** The session's pointer row after a pointer event: kept when its digest is the event's, else replaced from state.json (or dropped). */
  private pointer(num: number, sessionDir: string, id: string, op: PointerOp): void {
    const rid = textRowid(num, POINTER_SLOT);
    const type = `${POINTER_TYPE}:${op.digest}`;
    const held = this.pointerRow.get(rid) as string | undefined;
    if (held !== undefined && held === type && op.digest) return;
    this.updateText.run(rid);
    this.deletePending.run(rid, rid + 1);
    const c = pointerChunk(sessionDir, id, op.seq, op.off, op.digest);
    if (c) this.chunk(num, c, true);
  }

  clearTexts(num: number): void {
    this.deleteTexts.run(num * SPAN, (num + 1) * SPAN);
    this.deletePending.run(num * SPAN, (num + 1) * SPAN);
  }

  remove(num: number): void {
    this.clearTexts(num);
    this.deleteSessionStmt.run(num);
  }

  conflict(id: string, nowIso: string, indexedSeq: number, indexedH: string, detail: string): void {
    this.conflictStmt.run(id, nowIso, indexedSeq, indexedH, detail);
  }

  get database(): Db {
    return this.db;
  }
}

/** The searchable text of the event at byte `off` of a log (null when the line is not that event any more). */
export function textAt(logPath: string, off: number, seq: number): string | null {
  const ev = eventAt(logPath, off, seq);
  return ev ? eventText(ev) : null;
}

/** The event at byte `off` of a log (null when the line is not that event any more). */
export function eventAt(logPath: string, off: number, seq: number): StoredEvent | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(logPath, 'r');
    const parts: Buffer[] = [];
    const buf = Buffer.allocUnsafe(16 * 1024);
    let pos = off;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) return null;
      const nl = buf.subarray(0, n).indexOf(10);
      parts.push(Buffer.from(buf.subarray(0, nl >= 0 ? nl : n)));
      if (nl >= 0) break;
      pos += n;
      if (pos - off > 2 * 1024 * 1024) return null;
    }
    const ev = JSON.parse(Buffer.concat(parts).toString('utf8')) as StoredEvent;
    return ev.seq === seq ? ev : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function splitRowid(rowid: number | bigint): { num: number; seq: number } {
  const n = Number(rowid);
  return { num: Math.floor(n / SPAN), seq: n % SPAN };
}
