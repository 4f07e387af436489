// Catch-up on read (index.md, "Reconciled on read"): before answering, the index learns
// what changed since it last looked, without re-reading every log. It reads the change
// feed (store/feed.ts) from its recorded offset, the sessions folder when its mtime moved
// (new or removed sessions), and — at most every sweep interval — stats every log for
// changes no feed line announced. For each changed session it reads only the log's new
// tail, from the byte offset already indexed. A log that is no longer an extension of
// what was indexed is one recorded projection_conflict and a re-projection from the log.
// Never writes a log or anything in a session folder.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { isoMillis } from '../core/time.ts';
import { FEED_FILE, feedPath } from '../store/feed.ts';
import { LOG_FILE } from '../store/log.ts';
import type { Db } from './db.ts';
import { readLogInto, statLog } from './logread.ts';
import { feedState, getMeta, setMeta } from './meta.ts';
import { emptyRow } from './project.ts';
import { dirStamp, sessionNames, sweepIntervalMs } from './rebuild.ts';
import { IndexWriter } from './writer.ts';

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const FEED_ROTATE_BYTES = 1024 * 1024;

export interface ReconcileOptions {
  nowMs: number;
  /** Stat every log now (doctor, tests), whatever the sweep schedule says. */
  fullSweep?: boolean;
  /** Only these sessions (a single `show`): stat-based, feed left alone. */
  only?: string[];
  /** A listing: new search chunks go to text_pending (writer.ts), not into event_text. */
  deferTexts?: boolean;
  /** With `only`: forget what the index holds of them and read their logs from the start (a row edited behind baton's back is no prefix to extend). */
  reread?: boolean;
}

export interface ReconcileStats {
  looked: number;
  updated: number;
  removed: number;
  conflicts: string[];
  swept: boolean;
}

type Outcome = 'same' | 'updated' | 'removed' | 'conflict';

/** Catches one session up with its log. Caller holds a write transaction. */
export function catchUpSession(w: IndexWriter, home: string, id: string, nowIso: string): Outcome {
  const path = join(home, 'sessions', id, LOG_FILE);
  const st = statLog(path);
  const stored = w.load(id);
  if (!st || st.size === 0) {
    if (!stored) return 'same';
    w.remove(stored.num);
    return 'removed';
  }
  if (stored && stored.stat.size === st.size && stored.stat.ctime === st.ctime && stored.stat.ino === st.ino) return 'same';
  if (!stored || stored.row.corrupt || stored.row.last_seq === 0) {
    const num = stored ? stored.num : w.newNum();
    if (stored) w.clearTexts(num);
    const row = emptyRow(id);
    const texts = w.textSink(num, path, row);
    readLogInto(path, row, st.size, texts.op);
    if (row.last_seq === 0 && !row.corrupt) {
      if (stored) w.remove(num);
      return 'same';
    }
    texts.flush();
    w.upsert(num, row, st);
    return 'updated';
  }
  const num = stored.num;
  const row = stored.row;
  const texts = w.textSink(num, path, row);
  const res = readLogInto(path, row, st.size, texts.op);
  if (res.ok) {
    texts.flush();
    w.extend(num, row, st);
    return 'updated';
  }
  w.conflict(id, nowIso, stored.row.last_seq, stored.row.last_h, res.conflict);
  w.clearTexts(num);
  const fresh = emptyRow(id);
  const freshTexts = w.textSink(num, path, fresh);
  readLogInto(path, fresh, st.size, freshTexts.op);
  freshTexts.flush();
  w.upsert(num, fresh, st);
  return 'conflict';
}

function readFeedIds(home: string, from: number, to: number): { ids: Set<string>; consumed: number } {
  const ids = new Set<string>();
  if (to <= from) return { ids, consumed: 0 };
  let fd: number;
  try {
    fd = fs.openSync(feedPath(home), 'r');
  } catch {
    return { ids, consumed: 0 };
  }
  try {
    const buf = Buffer.allocUnsafe(to - from);
    const n = fs.readSync(fd, buf, 0, buf.length, from);
    const text = buf.toString('latin1', 0, n);
    const end = text.lastIndexOf('\n');
    if (end < 0) return { ids, consumed: 0 };
    for (const line of text.slice(0, end).split('\n')) if (ID_RE.test(line)) ids.add(line);
    return { ids, consumed: end + 1 };
  } finally {
    fs.closeSync(fd);
  }
}

/** True when nothing can have changed since the index last looked (no write transaction needed). */
function upToDate(db: Db, meta: Record<string, string>, home: string, nowMs: number, deferTexts: boolean): boolean {
  if (!deferTexts && db.prepare('SELECT 1 FROM text_pending LIMIT 1').get() !== undefined) return false;
  const feed = feedState(home);
  if (feed.ino !== (meta.feed_ino ?? '') || feed.size !== Number(meta.feed_offset ?? 0) || feed.mtime !== (meta.feed_mtime ?? '')) return false;
  if (dirStamp(join(home, 'sessions')) !== (meta.sessions_mtime ?? '')) return false;
  return nowMs < Number(meta.sweep_due_ms ?? 0);
}

export function reconcile(db: Db, home: string, opts: ReconcileOptions): ReconcileStats {
  const stats: ReconcileStats = { looked: 0, updated: 0, removed: 0, conflicts: [], swept: false };
  const nowIso = isoMillis(new Date(opts.nowMs));
  const count = (id: string, o: Outcome): void => {
    stats.looked++;
    if (o === 'updated') stats.updated++;
    else if (o === 'removed') stats.removed++;
    else if (o === 'conflict') {
      stats.updated++;
      stats.conflicts.push(id);
    }
  };
  if (opts.only) {
    db.transaction(() => {
      const w = new IndexWriter(db);
      for (const id of opts.only ?? []) {
        if (!ID_RE.test(id)) continue;
        const stored = opts.reread ? w.load(id) : null;
        if (stored) w.remove(stored.num);
        count(id, catchUpSession(w, home, id, nowIso));
      }
      w.flushChunks();
    }).immediate();
    return stats;
  }
  const defer = !!opts.deferTexts;
  if (!opts.fullSweep && upToDate(db, getMeta(db), home, opts.nowMs, defer)) return stats;
  db.transaction(() => {
    const meta = getMeta(db); // again, under the write lock: another process may have caught up
    const w = new IndexWriter(db, { deferTexts: defer });
    if (!defer) w.flushPending();
    const candidates = new Set<string>();
    const sessionsDir = join(home, 'sessions');
    const next: Record<string, string> = {};
    // 1. The change feed, from where we stopped.
    const feed = feedState(home);
    let offset = Number(meta.feed_offset ?? 0);
    const sweep = !!opts.fullSweep || opts.nowMs >= Number(meta.sweep_due_ms ?? 0);
    // Same size but written since (a writer started the feed over and it grew back): from the start too.
    const rewritten = feed.ino === (meta.feed_ino ?? '') && feed.size === offset && feed.mtime !== (meta.feed_mtime ?? '');
    if (feed.ino !== (meta.feed_ino ?? '') || feed.size < offset || rewritten) {
      // A new feed file (rotated by another reader, or deleted): read it from the start,
      // and sweep soon for anything a writer still holding the old file appended there.
      offset = 0;
      if (meta.feed_ino || feed.size < Number(meta.feed_offset ?? 0) || rewritten) next.sweep_due_ms = String(Math.min(Number(meta.sweep_due_ms ?? 0), opts.nowMs + 2000));
    }
    const fed = readFeedIds(home, offset, feed.size);
    for (const id of fed.ids) candidates.add(id);
    offset += fed.consumed;
    next.feed_ino = feed.ino;
    next.feed_offset = String(offset);
    next.feed_mtime = feed.mtime;
    // 2. Sessions that appeared or went away.
    const stamp = dirStamp(sessionsDir);
    let names: string[] | null = null;
    if (stamp !== (meta.sessions_mtime ?? '') || sweep) {
      names = sessionNames(sessionsDir);
      const present = new Set(names);
      const known = db.prepare('SELECT id FROM sessions').pluck().all() as string[];
      const knownSet = new Set(known);
      for (const n of names) if (!knownSet.has(n)) candidates.add(n);
      for (const k of known) if (!present.has(k)) candidates.add(k);
      next.sessions_mtime = stamp;
    }
    // 3. The periodic stat sweep: every log, for changes nobody announced. One query for
    //    what the index saw, one stat per log; only logs that differ are caught up.
    if (sweep && names) {
      const seen = new Map<string, string>();
      for (const r of db.prepare('SELECT id, log_size, log_ctime, log_ino FROM sessions').raw().all() as [string, number, string, string][]) {
        seen.set(r[0], `${r[1]}/${r[2]}/${r[3]}`);
      }
      for (const n of names) {
        const st = statLog(join(sessionsDir, n, LOG_FILE));
        if (!st ? seen.has(n) : seen.get(n) !== `${st.size}/${st.ctime}/${st.ino}`) candidates.add(n);
      }
      next.sweep_due_ms = String(opts.nowMs + sweepIntervalMs());
      stats.swept = true;
    }
    for (const id of candidates) if (ID_RE.test(id)) count(id, catchUpSession(w, home, id, nowIso));
    w.flushChunks();
    // The folders that hold a session: a folder without events (history import keeps the cursor
    // of a file that gave no item in one) has no row, and must not read as a row missing.
    if (names) next.session_folders = String(names.length - names.filter((n) => candidates.has(n) && !w.load(n)).length);
    // 4. Rotate a long feed; a writer that still appends to the old file is caught by a sweep soon.
    if (offset >= FEED_ROTATE_BYTES && offset === feed.size) {
      try {
        fs.renameSync(feedPath(home), join(home, `${FEED_FILE}.old`));
        next.feed_ino = '';
        next.feed_offset = '0';
        next.feed_mtime = '';
        next.sweep_due_ms = String(opts.nowMs + 2000);
      } catch {}
    }
    setMeta(db, next);
  }).immediate();
  return stats;
}
