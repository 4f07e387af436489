// History import (transcripts.md, "History import"): the sessions the agents already recorded
// on this machine, brought into baton once, read-only, resumably. A pure-ish function over the
// store and the readers (opencode's storage/json-migration.ts style): it returns stats and an
// error list; the progress bar, the output and the database library are the caller's.
//
// Source of truth: the agents' files, only ever read (capture.ts opens them O_RDONLY; listing is
// readdir and lstat; a database is read through a handle the caller opens on a private copy).
// Who writes: capture.ts's engine, the one the hooks use, into the session named by the agent's
// own session id (the id the hooks use), so an import and a later hook capture are one session
// with no item twice (items.idx, under the session mutex: two imports at once are safe too).
// What a crash leaves: items appended (fsync'd) before the cursor says so; the next run reads
// from the cursor again and idempotence drops what is already there. A session is listed as
// complete only when every file of it was read to its end by a cursor written after the append.
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Workspace } from '../core/session.ts';
import { isValidSessionId } from '../core/ids.ts';
import { isoMillis } from '../core/time.ts';
import type { TranscriptAgent } from '../core/transcript.ts';
import { titleFromPrompt } from '../hooks/prompt.ts';
import { FILE_MODE, ensureDir, readFileOrNull, writeFileAtomic } from '../store/fsutil.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { describeWorkspace } from '../store/workspace.ts';
import { type CaptureResult, captureEntries, captureOnce, cursorPath, insideStore, readCursor } from './capture.ts';
import { findReader } from './index.ts';
import { newParseState, parseJsonlChunk } from './parse.ts';
import type { Db, DbSession, PayloadReader, ReaderEnv, SessionMeta, TranscriptReader } from './types.ts';

/** Bytes of transcript one capture window reads: the import loops windows, so memory stays bounded whatever the file's size. */
export const IMPORT_WINDOW = 4 * 1024 * 1024;
/** Bytes of a file's head read to learn its session id or working directory before importing it. */
const PEEK_BYTES = 1024 * 1024;
/** Skipped lines kept by name per agent (all are counted). */
const MAX_LISTED_SKIPS = 200;
const MARKER_PREFIX = 'import-';

/** A database opened for reading (the caller's: a library the readers may not import). */
export interface OpenedDb {
  db: Db;
  close(): void;
}

export interface HistoryOptions {
  agents: readonly TranscriptAgent[];
  /** Only sessions with activity (file mtime, last record) at or after this instant. */
  since?: Date | null;
  /** Only sessions whose working directory is this folder or under it (absolute). */
  project?: string | null;
  dryRun?: boolean;
  readerEnv: ReaderEnv;
  now: () => Date;
  progress?: (p: ImportProgress) => void;
  /** Opens an agent's database read-only (opencode, Kilo); without it their sessions are errors. */
  openDb?: (path: string) => OpenedDb;
  /** Bytes per capture window (default IMPORT_WINDOW). */
  window?: number;
}

export interface ImportProgress {
  agent: string;
  sessions_done: number;
  sessions_total: number;
  bytes_done: number;
  bytes_total: number;
}

export interface SkippedLine {
  file: string;
  line: number;
  reason: string;
}

export interface HistoryProblem {
  agent: string;
  code: string;
  message: string;
  file?: string;
  session?: string;
  version?: string;
}

export interface AgentImportStats {
  agent: string;
  /** Sessions found in the agent's store (before --since / --project). */
  found: number;
  /** Sessions left out by --since or --project. */
  filtered: number;
  /** Sessions that gained items this run (or would, with --dry-run). */
  imported: number;
  /** Sessions already complete in baton (nothing read), or read again with nothing new. */
  already: number;
  /** Sessions not imported: an unknown format version, no usable id, nothing to hold, an error. */
  skipped: number;
  items: number;
  duplicates: number;
  superseded: number;
  /** Bytes of the sessions found (files; for a database, of the database). */
  bytes: number;
  /** Bytes of transcript read this run. */
  bytes_read: number;
  skipped_lines: number;
  /** The skipped lines, by file and line (the first MAX_LISTED_SKIPS). */
  skips: SkippedLine[];
}

export interface ImportResult {
  dry_run: boolean;
  agents: AgentImportStats[];
  errors: HistoryProblem[];
}

export interface AgentScan {
  agent: string;
  roots: string[];
  sessions: number;
  files: number;
  bytes: number;
  /** Oldest and newest activity (file mtime, or the database's times), ISO; null when none. */
  first_at: string | null;
  last_at: string | null;
  /** Complete in baton. */
  in_baton: number;
  /** In baton, but the agent's files hold more than was read. */
  partial: number;
  not_yet: number;
}

interface FileRef {
  path: string;
  real: string;
  size: number;
  mtimeMs: number;
  ino: string;
}

/** One agent session to import: its files (a Gemini resume adds a stub file), or its database row. */
interface Candidate {
  agent: TranscriptAgent;
  agentSession: string;
  files: FileRef[];
  bytes: number;
  lastMs: number;
  firstMs: number;
  db?: { path: string; session: DbSession };
  /** What a peek at the head learned (only when needed: Gemini's id, --project's cwd). */
  peek?: SessionMeta;
}

interface Plan {
  candidates: Candidate[];
  problems: HistoryProblem[];
  /** Sessions refused while listing (no id, a bad id, outside the store). */
  refused: number;
  roots: string[];
  dbBytes: number;
}

const emptyStats = (agent: string): AgentImportStats => ({
  agent,
  found: 0,
  filtered: 0,
  imported: 0,
  already: 0,
  skipped: 0,
  items: 0,
  duplicates: 0,
  superseded: 0,
  bytes: 0,
  bytes_read: 0,
  skipped_lines: 0,
  skips: [],
});

/** The head of a file parsed with a throwaway state: its session id, cwd, first prompt, as far as the head tells. */
function peekMeta(reader: TranscriptReader, real: string): SessionMeta {
  if (reader.format !== 'jsonl') return {};
  let fd: number;
  try {
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return {};
  }
  try {
    const buf = Buffer.allocUnsafe(PEEK_BYTES);
    const n = fs.readSync(fd, buf, 0, PEEK_BYTES, 0);
    const state = newParseState();
    parseJsonlChunk(reader, buf.subarray(0, n), 1, state);
    return state.meta;
  } catch {
    return {};
  } finally {
    fs.closeSync(fd);
  }
}

function fileRef(path: string, real: string): FileRef | null {
  try {
    const st = fs.statSync(real, { bigint: true });
    if (!st.isFile()) return null;
    return { path, real, size: Number(st.size), mtimeMs: Number(st.mtimeMs), ino: String(st.ino) };
  } catch {
    return null;
  }
}

/** The sessions of one agent's store, listed (readdir, stat, a head peek where the name tells no id). */
function plan(reader: TranscriptReader, opts: Pick<HistoryOptions, 'readerEnv' | 'openDb'>, dbs: Map<string, OpenedDb>): Plan {
  const roots = reader.roots(opts.readerEnv);
  const out: Plan = { candidates: [], problems: [], refused: 0, roots, dbBytes: 0 };
  const agent = reader.agent;
  if (reader.format === 'payload') {
    for (const f of reader.list(opts.readerEnv)) {
      const real = insideStore(f.path, roots);
      const ref = real ? fileRef(f.path, real) : null;
      if (!real || !ref) {
        out.problems.push({ agent, code: 'TR001', message: `${f.path} is outside ${agent}'s store or a link out of it; not read`, file: f.path });
        continue;
      }
      out.dbBytes += ref.size;
      const opened = openDatabase(opts, dbs, real);
      if ('problem' in opened) {
        out.problems.push({ agent, ...opened.problem, file: f.path });
        continue;
      }
      let sessions: DbSession[];
      try {
        sessions = reader.databaseSessions(opened.db);
      } catch (e) {
        out.problems.push({ agent, code: 'TR003', message: `cannot read the sessions of ${f.path}: ${e instanceof Error ? e.message : String(e)}`, file: f.path });
        continue;
      }
      for (const s of sessions) {
        const last = Date.parse(s.updatedAt ?? s.startedAt ?? '') || ref.mtimeMs;
        const first = Date.parse(s.startedAt ?? '') || last;
        out.candidates.push({ agent, agentSession: s.agentSession, files: [], bytes: 0, lastMs: last, firstMs: first, db: { path: real, session: s } });
      }
    }
    return out;
  }
  const groups = new Map<string, Candidate>();
  for (const f of reader.list(opts.readerEnv)) {
    const real = insideStore(f.path, roots);
    const ref = real ? fileRef(f.path, real) : null;
    if (!real || !ref) {
      out.refused++;
      out.problems.push({ agent, code: 'TR001', message: `${f.path} is outside ${agent}'s store or a link out of it; not read`, file: f.path });
      continue;
    }
    let peek: SessionMeta | undefined;
    let id = f.agentSession;
    if (!id) {
      peek = peekMeta(reader, real);
      id = peek.agentSession;
    }
    if (!id) {
      out.refused++;
      out.problems.push({ agent, code: 'TR003', message: `${f.path} names no session id in its first ${PEEK_BYTES} bytes; not imported`, file: f.path });
      continue;
    }
    if (!isValidSessionId(id)) {
      out.refused++;
      out.problems.push({ agent, code: 'WS003', message: `${f.path}: session id ${JSON.stringify(id.slice(0, 140))} is not one baton can name a session by; not imported`, file: f.path });
      continue;
    }
    let c = groups.get(id);
    if (!c) {
      c = { agent, agentSession: id, files: [], bytes: 0, lastMs: 0, firstMs: Number.POSITIVE_INFINITY, peek };
      groups.set(id, c);
      out.candidates.push(c);
    }
    c.files.push(ref);
    c.bytes += ref.size;
    c.lastMs = Math.max(c.lastMs, ref.mtimeMs);
    c.firstMs = Math.min(c.firstMs, ref.mtimeMs);
    c.peek ??= peek;
  }
  // The oldest file first (a Gemini resume's stub sorts after the original it belongs to).
  for (const c of out.candidates) c.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

function openDatabase(opts: Pick<HistoryOptions, 'openDb'>, dbs: Map<string, OpenedDb>, real: string): OpenedDb | { problem: { code: string; message: string } } {
  const had = dbs.get(real);
  if (had) return had;
  if (!opts.openDb) return { problem: { code: 'TR003', message: `${real} is a database and no database reader is available here` } };
  try {
    const opened = opts.openDb(real);
    dbs.set(real, opened);
    return opened;
  } catch (e) {
    return { problem: { code: 'TR003', message: `cannot open ${real} read-only: ${e instanceof Error ? e.message : String(e)}` } };
  }
}

const within = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/** The session's working directory for --project: what baton recorded, else what the transcript's head says. */
function cwdOf(store: FsStore, c: Candidate, reader: TranscriptReader): string | undefined {
  if (c.db) return c.db.session.cwd;
  if (store.exists(c.agentSession)) {
    const m = readFileOrNull(join(store.dir(c.agentSession), 'manifest.json'));
    try {
      const cwd = m ? (JSON.parse(m.toString('utf8')) as { workspace?: { cwd?: string } }).workspace?.cwd : undefined;
      if (cwd) return cwd;
    } catch {}
  }
  for (const f of c.files) {
    c.peek = c.peek?.cwd ? c.peek : { ...peekMeta(reader, f.real), ...(c.peek?.agentSession ? { agentSession: c.peek.agentSession } : {}) };
    if (c.peek.cwd) return c.peek.cwd;
  }
  return undefined;
}

function markerPath(store: FsStore, c: Candidate): string {
  return join(store.dir(c.agentSession), 'transcripts', `${MARKER_PREFIX}${c.agent}.json`);
}

/**
 * Complete: in baton, and every file read to its end by a cursor written after its items were
 * appended (and fsync'd); for a database session, the marker written after its append names the
 * session's last update.
 */
function completeness(store: FsStore, c: Candidate): 'complete' | 'partial' | 'absent' | 'empty' {
  const exists = store.exists(c.agentSession);
  if (c.db) {
    if (!exists) return 'absent';
    const m = readFileOrNull(markerPath(store, c));
    try {
      const marker = m ? (JSON.parse(m.toString('utf8')) as { updated_at?: string | null }) : null;
      return marker && marker.updated_at === (c.db.session.updatedAt ?? null) ? 'complete' : 'partial';
    } catch {
      return 'partial';
    }
  }
  const dir = store.dir(c.agentSession);
  let all = true;
  for (const f of c.files) {
    const cur = readCursor(cursorPath(dir, c.agent, c.agentSession, f.path));
    if (!cur || cur.ino !== f.ino || cur.offset !== f.size || cur.size !== f.size || cur.skipping || cur.unknown_version) all = false;
  }
  if (exists) return all ? 'complete' : 'partial';
  // Read to the end and nothing to hold: a header-only stub, no conversation.
  return all && c.files.length > 0 ? 'empty' : 'absent';
}

function workspaceOf(cwd: string | undefined, fallback: string): Workspace {
  const dir = cwd && cwd.trim() !== '' ? cwd : fallback;
  try {
    // A folder that no longer exists is still recorded, as the transcript names it.
    if (fs.statSync(dir).isDirectory()) return describeWorkspace(dir);
  } catch {}
  return { cwd: dir };
}

export const importWriter = (agent: string): Writer => ({ surface: 'cli', instanceId: `import:${agent}`, actor: 'system' });

/** What each agent has on this machine: sessions, bytes, date range, already in baton, not yet. Reads no transcript. */
export function scanHistory(store: FsStore, opts: Pick<HistoryOptions, 'agents' | 'readerEnv' | 'openDb'>): { agents: AgentScan[]; errors: HistoryProblem[] } {
  const dbs = new Map<string, OpenedDb>();
  const agents: AgentScan[] = [];
  const errors: HistoryProblem[] = [];
  try {
    for (const agent of opts.agents) {
      const reader = findReader(agent);
      if (!reader) continue;
      const p = plan(reader, opts, dbs);
      errors.push(...p.problems);
      const s: AgentScan = { agent, roots: p.roots, sessions: p.candidates.length, files: 0, bytes: p.dbBytes, first_at: null, last_at: null, in_baton: 0, partial: 0, not_yet: 0 };
      let first = Number.POSITIVE_INFINITY;
      let last = 0;
      for (const c of p.candidates) {
        s.files += c.files.length;
        s.bytes += c.bytes;
        first = Math.min(first, c.firstMs);
        last = Math.max(last, c.lastMs);
        const k = completeness(store, c);
        if (k === 'complete') s.in_baton++;
        else if (k === 'partial') s.partial++;
        else s.not_yet++;
      }
      if (p.candidates.length) {
        s.first_at = isoMillis(new Date(first));
        s.last_at = isoMillis(new Date(last));
      }
      agents.push(s);
    }
  } finally {
    for (const d of dbs.values()) d.close();
  }
  return { agents, errors };
}

/** Imports the agents' sessions (see the header). Never throws for an agent's file being odd: those are skips and errors in the result. */
export function importHistory(store: FsStore, opts: HistoryOptions): ImportResult {
  const dbs = new Map<string, OpenedDb>();
  const result: ImportResult = { dry_run: !!opts.dryRun, agents: [], errors: [] };
  try {
    const work: { reader: TranscriptReader; stats: AgentImportStats; todo: Candidate[] }[] = [];
    for (const agent of opts.agents) {
      const reader = findReader(agent);
      if (!reader) continue;
      const p = plan(reader, opts, dbs);
      const stats = emptyStats(agent);
      result.agents.push(stats);
      result.errors.push(...p.problems);
      stats.found = p.candidates.length + p.refused;
      stats.skipped += p.refused;
      stats.bytes = p.dbBytes;
      const todo: Candidate[] = [];
      for (const c of p.candidates) {
        stats.bytes += c.bytes;
        if (opts.since && c.lastMs < opts.since.getTime()) {
          stats.filtered++;
          continue;
        }
        if (opts.project) {
          const cwd = cwdOf(store, c, reader);
          if (!cwd || !within(cwd, opts.project)) {
            stats.filtered++;
            continue;
          }
        }
        const k = completeness(store, c);
        if (k === 'complete') stats.already++;
        else if (k === 'empty') stats.skipped++;
        else todo.push(c);
      }
      work.push({ reader, stats, todo });
    }
    const progress: ImportProgress = { agent: '', sessions_done: 0, sessions_total: 0, bytes_done: 0, bytes_total: 0 };
    for (const w of work) {
      progress.sessions_total += w.todo.length;
      for (const c of w.todo) progress.bytes_total += c.bytes;
    }
    for (const { reader, stats, todo } of work) {
      progress.agent = reader.agent;
      for (const c of todo) {
        if (opts.dryRun) {
          stats.imported++;
        } else {
          try {
            importOne(store, reader, c, opts, stats, result.errors, dbs, (bytes) => {
              progress.bytes_done += bytes;
              opts.progress?.(progress);
            });
          } catch (e) {
            // A store failure (a full disk, a corrupt log): this session waits for the next run.
            stats.skipped++;
            const err = e as { code?: unknown; message?: unknown };
            result.errors.push({ agent: reader.agent, code: typeof err.code === 'string' ? err.code : 'INTERNAL', message: String(err.message ?? e), session: c.agentSession });
          }
        }
        progress.sessions_done++;
        if (opts.dryRun) progress.bytes_done += c.bytes;
        opts.progress?.(progress);
      }
    }
  } finally {
    for (const d of dbs.values()) d.close();
  }
  return result;
}

function noteSkips(stats: AgentImportStats, file: string, r: CaptureResult): void {
  stats.skipped_lines += r.skips.length;
  for (const s of r.skips) {
    if (stats.skips.length >= MAX_LISTED_SKIPS) break;
    stats.skips.push({ file, line: s.line, reason: s.reason });
  }
}

function importOne(
  store: FsStore,
  reader: TranscriptReader,
  c: Candidate,
  opts: HistoryOptions,
  stats: AgentImportStats,
  errors: HistoryProblem[],
  dbs: Map<string, OpenedDb>,
  onBytes: (n: number) => void,
): void {
  const id = c.agentSession;
  const writer = importWriter(reader.agent);
  // session.created rides in the same write (and fsync) as the session's first items.
  const createWith = (meta: SessionMeta) => {
    const title = titleFromPrompt(meta.firstPrompt ?? '') || (c.db?.session.title ? titleFromPrompt(c.db.session.title) : null) || `${reader.agent} ${id.slice(0, 8)}`;
    return { title, workspace: workspaceOf(meta.cwd ?? c.db?.session.cwd, opts.readerEnv.home), writer, createdBy: `import:${reader.agent}` };
  };
  let appended = 0;
  let refusedAll = true;
  if (c.db) {
    const opened = dbs.get(c.db.path);
    if (!opened) throw new Error(`${c.db.path} is not open`);
    const entries = (reader as PayloadReader).databaseEntries(opened.db, id);
    const r = captureEntries({ store, sessionId: id, reader, agentSession: id, writer, now: opts.now(), readerEnv: opts.readerEnv, workspace: c.db.session.cwd ?? null, createWith }, entries, {
      cwd: c.db.session.cwd,
      startedAt: c.db.session.startedAt,
    });
    noteSkips(stats, c.db.path, r);
    stats.items += r.appended;
    stats.duplicates += r.duplicates;
    stats.superseded += r.superseded;
    appended = r.appended;
    if (r.unknownVersion) errors.push({ agent: reader.agent, code: 'TR002', message: `session ${id} in ${c.db.path} is in ${reader.agent} format version ${JSON.stringify(r.unknownVersion)}, which this baton does not read; skipped`, file: c.db.path, session: id, version: r.unknownVersion });
    if (r.refused) errors.push({ agent: reader.agent, code: r.refused.code, message: r.refused.message, file: c.db.path, session: id });
    else {
      refusedAll = false;
      if (store.exists(id)) {
        // After the append (fsync'd): the session is complete up to this update of the database.
        const tdir = join(store.writeDir(id), 'transcripts');
        ensureDir(tdir);
        writeFileAtomic(markerPath(store, c), `${JSON.stringify({ v: 1, agent: reader.agent, agent_session: id, updated_at: c.db.session.updatedAt ?? null })}\n`, { mode: FILE_MODE });
      }
    }
  } else {
    for (const f of c.files) {
      for (;;) {
        const r = captureOnce({ store, sessionId: id, reader, path: f.path, agentSession: id, writer, now: opts.now(), readerEnv: opts.readerEnv, budget: opts.window ?? IMPORT_WINDOW, createWith });
        stats.bytes_read += r.bytes;
        onBytes(r.bytes);
        noteSkips(stats, f.path, r);
        stats.items += r.appended;
        stats.duplicates += r.duplicates;
        stats.superseded += r.superseded;
        appended += r.appended;
        if (r.refused) {
          errors.push({ agent: reader.agent, code: r.refused.code, message: r.refused.message, file: f.path, session: id });
          break;
        }
        refusedAll = false;
        if (r.unknownVersion) {
          errors.push({ agent: reader.agent, code: 'TR002', message: `${f.path} is in ${reader.agent} format version ${JSON.stringify(r.unknownVersion)}, which this baton does not read; skipped`, file: f.path, session: id, version: r.unknownVersion });
          break;
        }
        if (!r.more) break;
      }
    }
  }
  if (appended > 0) stats.imported++;
  else if (!refusedAll && store.exists(id)) stats.already++;
  else stats.skipped++;
}
