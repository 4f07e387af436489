// The index as the rest of baton sees it: list, search, rebuild, conflicts, projects.
// Each call opens the index (building or recovering it as db.ts says), catches it up with
// the logs (reconcile.ts), answers, and closes. When no index can be had, listing and
// search scan the logs instead and say so through io.note. Never writes a session folder.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { LOG_FILE } from '../store/log.ts';
import { type Db, type IndexIo, buildFresh, dbPath, openIndex, withIndex } from './db.ts';
import { statLog } from './logread.ts';
import { getMeta } from './meta.ts';
import { type Project, type ProjectEntry, listProjects, readProjects } from './projects.ts';
import {
  type ListFilter,
  type ListedSession,
  type SearchFilter,
  type SearchHit,
  listFromIndex,
  listFromRows,
  queryTerms,
  scanRows,
  searchByScan,
  searchIndex,
} from './query.ts';
import { type RebuildStats, dirStamp, sessionNames } from './rebuild.ts';
import { type ReconcileStats, reconcile } from './reconcile.ts';

export type { IndexIo, ListFilter, ListedSession, SearchFilter, SearchHit, RebuildStats, Project };

const nowOf = (io: IndexIo): number => (io.nowMs ?? Date.now)();

/** The index still disagrees with the logs after catching up: the list falls back to the scan. */
class IndexDrift extends Error {
  readonly code = 'INDEX_DRIFT';
  constructor(ids: string[]) {
    super(`the index still disagrees with the logs of ${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ` and ${ids.length - 3} more` : ''}`);
  }
}

function hasStore(home: string): boolean {
  return fs.existsSync(join(home, 'sessions')) || fs.existsSync(dbPath(home));
}

/** Catches the index up with the logs (what every read does first). */
export function catchUp(db: Db, home: string, io: IndexIo, fullSweep = false, deferTexts = false): ReconcileStats {
  return reconcile(db, home, { nowMs: nowOf(io), fullSweep, deferTexts });
}

/**
 * What the index holds that the logs contradict, found cheaply: the rows about to be printed
 * whose log's stat (size, ctime, inode) is not the one the row was read at, and whether the
 * index has fewer rows than the store has session folders (a row deleted behind baton's
 * back). An edit that leaves a row's stat columns alone is found by doctor's sweep only.
 */
function rowsBehind(db: Db, home: string, ids: readonly string[]): { stale: string[]; missing: boolean } {
  const get = db.prepare('SELECT log_size, log_ctime, log_ino FROM sessions WHERE id = ?').raw();
  const stale: string[] = [];
  for (const id of ids) {
    const row = get.get(id) as [number, string, string] | undefined;
    const st = statLog(join(home, 'sessions', id, LOG_FILE));
    if (!row || !st || row[0] !== st.size || row[1] !== st.ctime || row[2] !== st.ino) stale.push(id);
  }
  const rows = db.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
  return { stale, missing: rows < sessionFolders(db, join(home, 'sessions')) };
}

/**
 * How many session folders hold a session: the count the index recorded with the folder's
 * mtime when that mtime is still the folder's (a folder made or removed changes it), else a
 * listing. Listing 10,000 folders on every `session list` cost ~6 ms (docs/adr/0085). The
 * recorded count leaves out folders without events (a cursor kept by history import): a
 * listing counts them, once, until the next catch-up records the count again.
 */
function sessionFolders(db: Db, sessionsDir: string): number {
  const meta = getMeta(db);
  const recorded = Number(meta.session_folders);
  if (meta.session_folders && Number.isSafeInteger(recorded) && meta.sessions_mtime === dirStamp(sessionsDir)) return recorded;
  return sessionNames(sessionsDir).length;
}

/** The index's answer, after checking the rows it is about to give against their logs. */
function listChecked(db: Db, home: string, filter: ListFilter, io: IndexIo): ListedSession[] {
  catchUp(db, home, io, false, true); // a listing leaves new search chunks pending (writer.ts)
  const listed = listFromIndex(db, home, filter, nowOf(io));
  const behind = rowsBehind(db, home, listed.map((s) => s.id));
  if (!behind.stale.length && !behind.missing) return listed;
  // Rows changed behind baton's back: catch those sessions up from their logs (a sweep when
  // rows are missing), then answer again.
  io.note?.(`the index disagreed with the logs${behind.stale.length ? ` of ${behind.stale.length} session(s)` : ''}${behind.missing ? ' (rows missing)' : ''}: caught up from the logs`);
  reconcile(db, home, behind.missing ? { nowMs: nowOf(io), fullSweep: true, deferTexts: true } : { nowMs: nowOf(io), only: behind.stale, reread: true });
  const again = listFromIndex(db, home, filter, nowOf(io));
  const still = rowsBehind(db, home, again.map((s) => s.id)).stale;
  if (still.length) throw new IndexDrift(still);
  return again;
}

export function listSessions(home: string, filter: ListFilter, io: IndexIo = {}): { sessions: ListedSession[]; source: 'index' | 'scan' } {
  if (!hasStore(home)) return { sessions: [], source: 'index' };
  let r: { value: ListedSession[] } | null = null;
  try {
    r = withIndex(home, io, (db) => listChecked(db, home, filter, io));
  } catch (e) {
    if (!(e instanceof IndexDrift)) throw e;
    io.note?.(`${e.message}: scanning the logs instead`);
  }
  if (r) return { sessions: r.value, source: 'index' };
  return { sessions: listFromRows(scanRows(home), home, filter, nowOf(io)), source: 'scan' };
}

export function searchSessions(home: string, query: string, filter: SearchFilter, io: IndexIo = {}): { hits: SearchHit[]; source: 'index' | 'scan' } {
  queryTerms(query); // a query with no words is refused before anything is opened
  if (!hasStore(home)) return { hits: [], source: 'index' };
  const r = withIndex(home, io, (db) => {
    catchUp(db, home, io);
    return searchIndex(db, home, query, filter);
  });
  if (r) return { hits: r.value, source: 'index' };
  return { hits: searchByScan(home, query, filter), source: 'scan' };
}

/** `baton index rebuild`: a complete new index from the logs, swapped in atomically. */
export function rebuildIndex(home: string, io: IndexIo = {}): RebuildStats {
  return buildFresh(home, io);
}

/**
 * The last projection conflict recorded for a session, as one line, or null. Catches that
 * one session up first (a stat and at most its new tail). Never builds an index, never throws.
 */
export function indexConflictFor(home: string, id: string): string | null {
  try {
    if (!fs.existsSync(dbPath(home))) return null;
    const r = withIndex(
      home,
      {},
      (db) => {
        reconcile(db, home, { nowMs: Date.now(), only: [id] });
        const c = db.prepare('SELECT detected_at, detail FROM conflicts WHERE session = ? ORDER BY id DESC LIMIT 1').get(id) as
          | { detected_at: string; detail: string }
          | undefined;
        return c ? `projection_conflict at ${c.detected_at}: ${c.detail}; the index was re-projected from the log` : null;
      },
      { build: false },
    );
    return r?.value ?? null;
  } catch {
    return null;
  }
}

/** Every recorded conflict (doctor, after a full stat sweep). */
export function indexConflicts(db: Db): { session: string; detected_at: string; detail: string }[] {
  return db.prepare('SELECT session, detected_at, detail FROM conflicts ORDER BY id').all() as { session: string; detected_at: string; detail: string }[];
}

/** Projects with their session counts (the index's workspaces, else a scan). */
export function projectList(home: string, io: IndexIo = {}): Project[] {
  const entries: ProjectEntry[] = readProjects(home);
  if (!hasStore(home)) return listProjects(entries, []);
  const r = withIndex(home, io, (db) => {
    catchUp(db, home, io);
    return db.prepare('SELECT cwd, git_root, count(*) AS n FROM sessions WHERE cwd IS NOT NULL GROUP BY cwd, git_root').all() as {
      cwd: string;
      git_root: string | null;
      n: number;
    }[];
  });
  if (r) return listProjects(entries, r.value);
  const counts = new Map<string, { cwd: string; git_root: string | null; n: number }>();
  for (const row of scanRows(home)) {
    if (row.cwd === null) continue;
    const k = `${row.cwd}\0${row.git_root ?? ''}`;
    const c = counts.get(k) ?? { cwd: row.cwd, git_root: row.git_root, n: 0 };
    c.n++;
    counts.set(k, c);
  }
  return listProjects(entries, [...counts.values()]);
}

export { openIndex };
