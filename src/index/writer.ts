// Writing projected sessions into the index: the one place that knows the table layout.
// Callers hold a transaction. The search rows of a session live at rowids
// num * 2^32 + seq, so re-projecting a session deletes one rowid range.
import type { Db } from './db.ts';
import type { LogStat } from './logread.ts';
import type { SessionRow, TextOp } from './project.ts';
import { applyRedaction } from './project.ts';

const SPAN = 2 ** 32;

export interface StoredRow {
  num: number;
  row: SessionRow;
  stat: LogStat;
}

interface DbRow {
  num: number;
  id: string;
  title: string;
  title_seq: number;
  cwd: string | null;
  git_root: string | null;
  created_at: string;
  last_touched_at: string;
  events: number;
  last_seq: number;
  last_h: string;
  archived: number;
  lease_until: string | null;
  pointer_status: string | null;
  open_episodes: string;
  corrupt: string | null;
  log_offset: number;
  line_start: number;
  log_size: number;
  log_ctime: string;
  log_ino: string;
}

export function rowFromDb(r: DbRow): SessionRow {
  return {
    id: r.id,
    title: r.title,
    title_seq: r.title_seq,
    cwd: r.cwd,
    git_root: r.git_root,
    created_at: r.created_at,
    last_touched_at: r.last_touched_at,
    events: r.events,
    last_seq: r.last_seq,
    last_h: r.last_h,
    archived: r.archived === 1,
    lease_until: r.lease_until,
    pointer_status: r.pointer_status,
    open_episodes: JSON.parse(r.open_episodes),
    corrupt: r.corrupt ? JSON.parse(r.corrupt) : null,
    log_offset: r.log_offset,
    line_start: r.line_start,
  };
}

export class IndexWriter {
  private readonly db: Db;
  private readonly upsertStmt;
  private readonly insertText;
  private readonly selectText;
  private readonly updateText;
  private readonly deleteTexts;
  private readonly loadStmt;
  private readonly maxNum;
  private readonly deleteSessionStmt;
  private readonly conflictStmt;
  private next = 0;

  constructor(db: Db) {
    this.db = db;
    this.upsertStmt = db.prepare(`INSERT INTO sessions (num, id, title, title_seq, cwd, git_root, created_at, last_touched_at, events, last_seq, last_h,
        archived, lease_until, pointer_status, open_episodes, corrupt, log_offset, line_start, log_size, log_ctime, log_ino)
      VALUES (@num, @id, @title, @title_seq, @cwd, @git_root, @created_at, @last_touched_at, @events, @last_seq, @last_h,
        @archived, @lease_until, @pointer_status, @open_episodes, @corrupt, @log_offset, @line_start, @log_size, @log_ctime, @log_ino)
      ON CONFLICT (num) DO UPDATE SET title = excluded.title, title_seq = excluded.title_seq, cwd = excluded.cwd, git_root = excluded.git_root,
        created_at = excluded.created_at, last_touched_at = excluded.last_touched_at, events = excluded.events, last_seq = excluded.last_seq,
        last_h = excluded.last_h, archived = excluded.archived, lease_until = excluded.lease_until, pointer_status = excluded.pointer_status,
        open_episodes = excluded.open_episodes, corrupt = excluded.corrupt, log_offset = excluded.log_offset, line_start = excluded.line_start,
        log_size = excluded.log_size, log_ctime = excluded.log_ctime, log_ino = excluded.log_ino`);
    this.insertText = db.prepare('INSERT INTO event_text (rowid, text, type) VALUES (?, ?, ?)');
    this.selectText = db.prepare('SELECT text FROM event_text WHERE rowid = ?').pluck();
    this.updateText = db.prepare('UPDATE event_text SET text = ? WHERE rowid = ?');
    this.deleteTexts = db.prepare('DELETE FROM event_text WHERE rowid >= ? AND rowid < ?');
    this.loadStmt = db.prepare('SELECT * FROM sessions WHERE id = ?');
    this.maxNum = db.prepare('SELECT max(num) FROM sessions').pluck();
    this.deleteSessionStmt = db.prepare('DELETE FROM sessions WHERE num = ?');
    this.conflictStmt = db.prepare('INSERT INTO conflicts (session, detected_at, indexed_seq, indexed_h, detail) VALUES (?, ?, ?, ?, ?)');
  }

  newNum(): number {
    if (this.next === 0) this.next = ((this.maxNum.get() as number | null) ?? 0) + 1;
    return this.next++;
  }

  load(id: string): StoredRow | null {
    const r = this.loadStmt.get(id) as DbRow | undefined;
    if (!r) return null;
    return { num: r.num, row: rowFromDb(r), stat: { size: r.log_size, ctime: r.log_ctime, ino: r.log_ino } };
  }

  upsert(num: number, row: SessionRow, stat: LogStat): void {
    this.upsertStmt.run({
      num,
      id: row.id,
      title: row.title,
      title_seq: row.title_seq,
      cwd: row.cwd,
      git_root: row.git_root,
      created_at: row.created_at,
      last_touched_at: row.last_touched_at,
      events: row.events,
      last_seq: row.last_seq,
      last_h: row.last_h,
      archived: row.archived ? 1 : 0,
      lease_until: row.lease_until,
      pointer_status: row.pointer_status,
      open_episodes: JSON.stringify(row.open_episodes),
      corrupt: row.corrupt ? JSON.stringify(row.corrupt) : null,
      log_offset: row.log_offset,
      line_start: row.line_start,
      log_size: stat.size,
      log_ctime: stat.ctime,
      log_ino: stat.ino,
    });
  }

  /** Applies one search-table operation of session `num`. */
  text(num: number, op: TextOp): void {
    if (op.kind === 'text') {
      this.insertText.run(num * SPAN + op.seq, op.text, op.type);
      return;
    }
    for (const seq of op.seqs) {
      if (!Number.isInteger(seq) || seq < 1) continue;
      const rowid = num * SPAN + seq;
      const old = this.selectText.get(rowid) as string | undefined;
      if (old === undefined) continue;
      const red = applyRedaction(old, op.pattern);
      if (red !== old) this.updateText.run(red, rowid);
    }
  }

  clearTexts(num: number): void {
    this.deleteTexts.run(num * SPAN, (num + 1) * SPAN);
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

export function splitRowid(rowid: number | bigint): { num: number; seq: number } {
  const n = Number(rowid);
  return { num: Math.floor(n / SPAN), seq: n % SPAN };
}
