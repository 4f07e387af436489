// Opening `<home>/baton.db` (index.md). Source of truth: none — the database is a projection
// of the logs, so anything wrong with it (missing, unreadable, an older schema) is answered
// by building a new one from the logs. Who writes: one connection per process, WAL,
// busy_timeout 5 s, synchronous=NORMAL. What a crash leaves: a WAL SQLite recovers, or a
// `baton.db.rebuild-*` temp file that the next build removes.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { join } from '../core/path.ts';
import Database from 'better-sqlite3';
import { refuseLink } from '../store/fsutil.ts';
import { claimHome } from '../store/home.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.ts';
import { type RebuildStats, rebuild, rebuildInto, sessionNames } from './rebuild.ts';
import { WorkerSink, sqliteModulePath } from './rebuild-worker.ts';

export type Db = Database.Database;
export const DB_FILE = 'baton.db';
const BUSY_MS = 5000;

export interface IndexIo {
  /** A line for stderr: the index was moved aside, rebuilt, or could not be had. */
  note?: (message: string) => void;
  /** Rebuild progress (the caller draws a bar on a TTY). */
  progress?: (done: number, total: number) => void;
  nowMs?: () => number;
  /**
   * Index on a worker thread while this one reads the logs: by default for stores of 200
   * sessions or more (BATON_INDEX_WORKER=0 turns it off); true or false forces it.
   */
  worker?: boolean;
}

/**
 * A fresh build's FTS settings (docs/adr/0084): a large in-memory term buffer means few, large
 * segments, and no automatic merging while the build inserts; FTS5's crisis merge still bounds
 * a level at 16 segments. A full build of 1,000,000 events ends with ~11 segments (5 with
 * merging) and takes ~20% less time; the default merging is set back before the commit, so
 * the catch-ups that follow merge as before.
 */
export const FTS_BULK_SQL = ["INSERT INTO event_text (event_text, rank) VALUES ('hashsize', 8388608)", "INSERT INTO event_text (event_text, rank) VALUES ('automerge', 0)"];
export const FTS_BULK_DONE_SQL = "INSERT INTO event_text (event_text, rank) VALUES ('automerge', 4)";

export function dbPath(home: string): string {
  return join(home, DB_FILE);
}

const errCode = (e: unknown): string => String((e as { code?: unknown })?.code ?? '');

const errMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The file is not a database, a damaged one, or one whose schema is not what the migrations
 * made (a table or column dropped behind baton's back): move it aside and rebuild.
 */
export function isCorruption(e: unknown): boolean {
  const c = errCode(e);
  if (c === 'SQLITE_ERROR' && /^no such (table|column)|has no column named/.test(errMessage(e))) return true;
  return c === 'SQLITE_NOTADB' || c.startsWith('SQLITE_CORRUPT');
}

/**
 * No index can be had here (read-only or full disk, no permission): fall back to a scan.
 * "cannot commit - no transaction is active" is SQLite having rolled a write transaction
 * back on its own (what it does on a full disk or an I/O error mid-statement).
 */
export function isUnavailable(e: unknown): boolean {
  const c = errCode(e);
  if (/no transaction is active/.test(errMessage(e))) return true;
  return (
    ['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EIO'].includes(c) ||
    ['SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_PERM', 'SQLITE_AUTH', 'SQLITE_BUSY', 'SQLITE_LOCKED'].some((p) => c.startsWith(p))
  );
}

function applyMigrations(db: Db): void {
  for (const m of MIGRATIONS) db.exec(m.sql);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('format', ?)").run(`baton-index-${SCHEMA_VERSION}`);
}

function removeQuietly(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {}
}

/** Temp files of builds that crashed, older than an hour. */
function sweepStaleBuilds(home: string, nowMs: number): void {
  try {
    for (const n of fs.readdirSync(home)) {
      if (!n.startsWith(`${DB_FILE}.rebuild-`)) continue;
      const p = join(home, n);
      if (nowMs - fs.statSync(p).mtimeMs > 3600_000) removeQuietly(p);
    }
  } catch {}
}

/**
 * Builds a complete index from the logs into a temp file (fast pragmas, no journal) and
 * renames it over baton.db: readers see the old index or the new one, never half of one.
 */
export function buildFresh(home: string, io: IndexIo = {}): RebuildStats {
  const now = io.nowMs ?? Date.now;
  claimHome(home);
  sweepStaleBuilds(home, now());
  const target = dbPath(home);
  const tmp = `${target}.rebuild-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  fs.closeSync(fs.openSync(tmp, 'wx', 0o600));
  const swap = (): void => {
    removeQuietly(`${target}-wal`);
    removeQuietly(`${target}-shm`);
    fs.renameSync(tmp, target);
  };
  const wanted = io.worker ?? (process.env.BATON_INDEX_WORKER !== '0' && sessionNames(join(home, 'sessions')).length >= 200);
  const sqlite = wanted ? sqliteModulePath() : null;
  if (sqlite) {
    const sink = new WorkerSink(tmp, sqlite, FTS_BULK_SQL, FTS_BULK_DONE_SQL);
    try {
      const stats = rebuildInto(sink, home, { progress: io.progress, nowMs: now() });
      swap();
      return stats;
    } catch (e) {
      sink.close();
      removeQuietly(tmp);
      throw e;
    }
  }
  let db: Db | null = null;
  try {
    db = new Database(tmp, { nativeBinding: sqliteBinding() });
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('cache_size = -65536');
    applyMigrations(db);
    for (const sql of FTS_BULK_SQL) db.exec(sql);
    const stats = rebuild(db, home, { progress: io.progress, nowMs: now() });
    db.exec(FTS_BULK_DONE_SQL);
    db.pragma('locking_mode = NORMAL');
    db.pragma('journal_mode = WAL');
    db.close();
    db = null;
    swap();
    return stats;
  } catch (e) {
    try {
      db?.close();
    } catch {}
    removeQuietly(tmp);
    throw e;
  }
}

/** Moves an unreadable baton.db (and its -wal, -shm) aside; returns where it went. */
export function moveAside(home: string, nowMs: number): string {
  const target = dbPath(home);
  const stamp = new Date(nowMs).toISOString().replace(/[:.]/g, '-');
  const aside = `${target}.corrupt-${stamp}`;
  fs.renameSync(target, aside);
  for (const ext of ['-wal', '-shm']) {
    try {
      fs.renameSync(`${target}${ext}`, `${aside}${ext}`);
    } catch {}
  }
  return aside;
}

let binding: object | string | undefined | null = null;

/** Where a build of better-sqlite3 leaves its addon, relative to the package (the folders `bindings` tries first). */
const ADDON_DIRS = ['build/Release', 'build/Debug', 'out/Release', 'out/Debug', 'Release', 'Debug', 'build/default'];

/**
 * better-sqlite3's compiled addon, for the constructor's `nativeBinding`. Its JavaScript is
 * bundled into baton's own bundles (scripts/build.mjs: 14 small modules resolved and read one
 * by one cost a `session list` ~10 ms), so its own search for the addon (`bindings`, which
 * starts from the calling file) would look in baton's folder, not the package's. First the
 * package installed beside baton's bundles (`<package>/node_modules/better-sqlite3`, what npm
 * makes of a global install and of this repository), loaded by process.dlopen: no module
 * resolution and no require() of the file, ~3 M instructions a `session list` (docs/adr/0085).
 * Else the package this process resolves, by path; undefined (the addon's own search) when no
 * build folder of it has the addon.
 */
export function sqliteBinding(): string | undefined {
  // The constructor takes the addon object as well as a path (better-sqlite3's lib/database.js);
  // its type declarations name the path only.
  if (binding !== null) return binding as string | undefined;
  if (typeof __dirname === 'string') {
    try {
      const m = { exports: {} };
      process.dlopen(m, join(__dirname, '..', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));
      binding = m.exports;
      return m.exports as unknown as string;
    } catch {}
  }
  binding = undefined;
  const main = sqliteModulePath();
  if (main) {
    const root = join(dirname(main), '..');
    binding = ADDON_DIRS.map((d) => join(root, d, 'better_sqlite3.node')).find((p) => fs.existsSync(p));
  }
  return binding;
}

/** Opens an existing baton.db; 'stale' when its schema is not the latest. Throws on corruption. */
function openExisting(path: string): Db | 'stale' {
  const db = new Database(path, { fileMustExist: true, timeout: BUSY_MS, nativeBinding: sqliteBinding() });
  try {
    db.pragma(`busy_timeout = ${BUSY_MS}`);
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    if (db.pragma('user_version', { simple: true }) !== SCHEMA_VERSION) {
      db.close();
      return 'stale';
    }
    db.prepare("SELECT value FROM meta WHERE key = 'format'").get();
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function describe(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0];
}

/**
 * The index, ready to read: built when missing, rebuilt when its schema changed, moved
 * aside and rebuilt when unreadable. Returns null (after a note) when no index can be had,
 * so the caller falls back to scanning the logs.
 */
export function openIndex(home: string, io: IndexIo = {}, opts: { build?: boolean } = {}): Db | null {
  const path = dbPath(home);
  const note = io.note ?? (() => {});
  // SQLite follows links when it opens the database and its -wal and -shm: refuse them first (WS010).
  for (const p of [path, `${path}-wal`, `${path}-shm`]) refuseLink(p);
  try {
    if (!fs.existsSync(path)) {
      if (opts.build === false) return null;
      buildFresh(home, io);
    }
    let db = openExisting(path);
    if (db === 'stale') {
      note('the index schema changed: rebuilding baton.db from the logs');
      buildFresh(home, io);
      db = openExisting(path);
      if (db === 'stale') throw new Error('a rebuilt index has the wrong schema version');
    }
    return db;
  } catch (e) {
    if (isCorruption(e)) return recover(home, io, e);
    if (isUnavailable(e)) {
      note(`index unavailable (${describe(e)}): scanning the logs instead`);
      return null;
    }
    throw e;
  }
}

/** Moves a corrupt index aside and builds a new one (or gives up to the scan fallback). */
export function recover(home: string, io: IndexIo, cause: unknown): Db | null {
  const now = io.nowMs ?? Date.now;
  const note = io.note ?? (() => {});
  try {
    const aside = moveAside(home, now());
    note(`the index was unreadable (${describe(cause)}): moved it aside to ${aside} and rebuilt it from the logs`);
    buildFresh(home, io);
    const db = openExisting(dbPath(home));
    if (db === 'stale') throw new Error('a rebuilt index has the wrong schema version');
    return db;
  } catch (e) {
    if (isUnavailable(e) || isCorruption(e)) {
      note(`index unavailable (${describe(e)}): scanning the logs instead`);
      return null;
    }
    throw e;
  }
}

/**
 * Runs fn on the index; a corruption found while running moves the index aside, rebuilds
 * it and runs fn once more. Null when no index can be had (the caller scans).
 */
export function withIndex<T>(home: string, io: IndexIo, fn: (db: Db) => T, opts: { build?: boolean } = {}): { value: T } | null {
  let db = openIndex(home, io, opts);
  if (!db) return null;
  try {
    return { value: fn(db) };
  } catch (e) {
    try {
      db.close();
    } catch {}
    db = null;
    if (isCorruption(e)) {
      db = recover(home, io, e);
      if (!db) return null;
      return { value: fn(db) };
    }
    if (isUnavailable(e)) {
      io.note?.(`index unavailable (${describe(e)}): scanning the logs instead`);
      return null;
    }
    throw e;
  } finally {
    try {
      db?.close();
    } catch {}
  }
}
