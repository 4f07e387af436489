// Rebuild: the whole index from the logs, as a pure-ish function in the style of an
// importer — rebuild(db, home, {progress}) -> stats and a list of errors. Reads logs, never
// writes them. The caller provides an empty, migrated database (db.ts buildFresh). The
// reading and folding is rebuildInto(sink, ...); where rows go is the sink's business: a
// transaction on this thread (rebuild), or a worker thread that does the SQLite and FTS
// work while this thread reads and parses the next logs (rebuild-worker.ts).
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { LOG_FILE } from '../store/log.ts';
import type { Db } from './db.ts';
import { type LogStat, readLogInto, statLog } from './logread.ts';
import { feedState, setMeta } from './meta.ts';
import { type Chunk, TextBuffer } from './chunks.ts';
import { type PointerOp, type SessionRow, type TextOp, emptyRow } from './project.ts';
import { laterPointer, pointerChunk } from './pointer-text.ts';
import { IndexWriter } from './writer.ts';

export interface RebuildStats {
  sessions: number;
  events: number;
  texts: number;
  corrupt: number;
  errors: { session: string; message: string }[];
  ms: number;
}

/** Where a rebuild puts what it read. Texts arrive with `session redact` patterns already applied. */
export interface RebuildSink {
  session(num: number, row: SessionRow, stat: LogStat): void;
  chunk(num: number, c: Chunk): void;
  /** The end of a batch of sessions (a commit point). */
  flush(): void;
  finish(meta: Record<string, string>): void;
}

const BATCH = 500;

export function sessionNames(sessionsDir: string): string[] {
  try {
    return fs.readdirSync(sessionsDir).filter((n) => !n.startsWith('.'));
  } catch {
    return [];
  }
}

export function dirStamp(path: string): string {
  try {
    return String(fs.statSync(path, { bigint: true }).mtimeNs);
  } catch {
    return '';
  }
}

/** How often a reader re-stats every log, for changes no feed line announced (synced or hand-edited logs). */
export function sweepIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BATON_INDEX_SWEEP_MS;
  const v = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(v) && v >= 0 ? v : 60_000;
}

/**
 * One session's log read and projected, with its search chunks (the pointer's row last: the
 * end of the session's rowid range, pointer-text.ts); null when it holds no event. A log that
 * cannot be read is an error of that session, recorded in `stats`, and the build goes on.
 */
function readSession(dir: string, id: string, stats: RebuildStats): { row: SessionRow; stat: LogStat; chunks: Chunk[] } | null {
  try {
    const path = join(dir, LOG_FILE);
    const st = statLog(path);
    if (!st || st.size === 0) return null;
    const row = emptyRow(id);
    // A session's texts are held until its log is read, so `session redact` patterns
    // (context.rewritten, later in the log) apply before anything reaches the index.
    const texts = new TextBuffer();
    const last: { pointer: PointerOp | null } = { pointer: null };
    readLogInto(path, row, st.size, (op: TextOp) => {
      if (op.kind === 'text') texts.add({ seq: op.seq, type: op.type, text: op.text, off: op.off });
      else if (op.kind === 'pointer') last.pointer = laterPointer(last.pointer, op);
      else texts.redact(op.seqs, op.pattern);
    });
    if (row.last_seq === 0 && !row.corrupt) return null;
    const chunks = texts.chunks();
    const p = last.pointer;
    const pc = p && pointerChunk(dir, id, p.seq, p.off, p.digest);
    if (pc) chunks.push(pc);
    stats.sessions++;
    stats.events += row.events;
    stats.texts += texts.size;
    if (row.corrupt) stats.corrupt++;
    return { row, stat: st, chunks };
  } catch (e) {
    stats.errors.push({ session: id, message: e instanceof Error ? e.message : String(e) });
    return null;
  }
}

export function rebuildInto(sink: RebuildSink, home: string, opts: { progress?: (done: number, total: number) => void; nowMs?: number } = {}): RebuildStats {
  const t0 = performance.now();
  const now = opts.nowMs ?? Date.now();
  const sessionsDir = join(home, 'sessions');
  // Noted before reading: whatever is appended while we read is caught up afterwards.
  const feed = feedState(home);
  const dirMtime = dirStamp(sessionsDir);
  const names = sessionNames(sessionsDir).sort();
  const stats: RebuildStats = { sessions: 0, events: 0, texts: 0, corrupt: 0, errors: [], ms: 0 };
  const total = names.length;
  opts.progress?.(0, total);
  let num = 0;
  for (let i = 0; i < total; i++) {
    const id = names[i];
    const read = readSession(join(sessionsDir, id), id, stats);
    // The sink's errors are outside readSession's catch: a failed worker fails the build at
    // once, never one session at a time (each would wait out the worker's stall timeout).
    if (read) {
      num++;
      for (const c of read.chunks) sink.chunk(num, c);
      sink.session(num, read.row, read.stat);
    }
    if ((i + 1) % BATCH === 0 || i + 1 === total) {
      sink.flush();
      opts.progress?.(i + 1, total);
    }
  }
  sink.finish({
    feed_ino: feed.ino,
    feed_offset: String(feed.size),
    feed_mtime: feed.mtime,
    sessions_mtime: dirMtime,
    session_folders: String(num), // the folders that hold a session (events): each has its row
    sweep_due_ms: String(now + sweepIntervalMs()),
    built_at: new Date(now).toISOString(),
  });
  stats.ms = Math.round(performance.now() - t0);
  return stats;
}

/**
 * The sink of a rebuild on this thread: one transaction for the whole build (into a fresh
 * temp file without a journal), because every commit flushes FTS5's term buffer into a new
 * segment and segments cost merges.
 */
export class DbSink implements RebuildSink {
  private readonly db: Db;
  private readonly w: IndexWriter;
  private open = false;

  constructor(db: Db) {
    this.db = db;
    this.w = new IndexWriter(db);
  }

  private begin(): void {
    if (!this.open) {
      this.db.exec('BEGIN');
      this.open = true;
    }
  }

  session(num: number, row: SessionRow, stat: LogStat): void {
    this.begin();
    this.w.upsert(num, row, stat);
  }

  chunk(num: number, c: Chunk): void {
    this.begin();
    this.w.chunk(num, c);
  }

  flush(): void {}

  finish(meta: Record<string, string>): void {
    this.begin();
    setMeta(this.db, meta);
    this.db.exec('COMMIT');
    this.open = false;
  }
}

export function rebuild(db: Db, home: string, opts: { progress?: (done: number, total: number) => void; nowMs?: number } = {}): RebuildStats {
  const sink = new DbSink(db);
  try {
    return rebuildInto(sink, home, opts);
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw e;
  }
}
