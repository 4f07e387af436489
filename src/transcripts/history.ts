// History import (transcripts.md, "History import"): the sessions the agents already recorded
// on this machine, brought into baton once, read-only, resumably. A pure-ish function over the
// store and the readers (opencode's storage/json-migration.ts style): it returns stats and an
// error list; the progress bar, the output and the database library are the caller's.
//
// Source of truth: the agents' files, only ever read (capture.ts opens them O_RDONLY; listing is
// readdir and lstat; a database is read through a handle the caller opens on a private copy).
// Who writes: capture.ts's engine, the one the hooks use, into the session named by the agent's
// own session id (the id the hooks use), so an import and a later hook capture are one session
// with no item twice (items.v2.idx, under the session mutex: two imports at once are safe too).
// A session not yet in baton (files up to FRESH_MAX_BYTES) is written here instead, in one
// append: session.created, then per run of the agent (meta.runs; one run for the import where
// the reader tells none) episode.opened, its items, episode.closed; then, in the capture
// engine's formats, items.v2.idx and recent.json under the same mutex hold, the manifest, and the
// cursors last (ADR 0073). Anything unusual hands the session to the capture engine unwritten.
// What a crash leaves: items appended (fsync'd) before the cursor says so; the next run reads
// from the cursor again and idempotence drops what is already there. A session is listed as
// complete only when every file of it was read to its end by a cursor written after the append.
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { EventInput, StoredEvent } from '../core/events.ts';
import { sha256Hex } from '../core/hash.ts';
import { isValidSessionId } from '../core/ids.ts';
import type { Workspace } from '../core/session.ts';
import { isoMillis, isoMillisOf } from '../core/time.ts';
import { type TranscriptAgent, type TranscriptItem, boundItem, itemDigest, itemKey } from '../core/transcript.ts';
import { titleFromPrompt } from '../hooks/prompt.ts';
import { FILE_MODE, appendDurable, ensureDir, fsyncDir, readFileOrNull, selfCheckedText, writeFileAtomic } from '../store/fsutil.ts';
import { LOG_FILE } from '../store/log.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { describeWorkspace } from '../store/workspace.ts';
import { AGENT_FILE_FLAGS, type CaptureResult, tailOf, type Cursor, HEAD_BYTES, INDEX_FILE, RECENT_FILE, actorOf, captureEntries, headOf, captureOnce, cursorPath, cursorText, emptyRecent, foldRecent, insideStore, readCursor } from './capture.ts';
import { TRANSCRIPTS_DIR } from './cursor-file.ts';
import { findReader } from './index.ts';
import { type Skip, newParseState, parseJsonlChunk } from './parse.ts';
import type { Db, DbSession, JsonlReader, ParseState, PayloadReader, ReaderEnv, RunMark, SessionMeta, TranscriptReader } from './types.ts';

/** Bytes of transcript one capture window reads: the import loops windows, so memory stays bounded whatever the file's size. */
export const IMPORT_WINDOW = 4 * 1024 * 1024;
/** Bytes of a file's head read to learn its session id or working directory before importing it. */
const PEEK_BYTES = 1024 * 1024;
/** Skipped lines kept by name per agent (all are counted). */
const MAX_LISTED_SKIPS = 200;
const MARKER_PREFIX = 'import-';
/**
 * A session not yet in baton whose files total at most this is imported in one append (its
 * items and its episodes, in order); a larger one goes window by window through the capture
 * engine (memory stays bounded) and gets no episodes.
 */
export const FRESH_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Fresh sessions whose log is being fsync'd on the thread pool while the import parses the next
 * ones; the oldest is published (renamed into place) when more are waiting (ADR 0082).
 */
const STAGED_WINDOW = 4;

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
    fd = fs.openSync(real, AGENT_FILE_FLAGS);
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
    const cwd = store.workspaceCwd(c.agentSession);
    if (cwd) return cwd;
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
export async function importHistory(store: FsStore, opts: HistoryOptions): Promise<ImportResult> {
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
    // Staged sessions (ADR 0082) of importers killed on this host.
    if (!opts.dryRun) store.sweepStaged();
    const progress: ImportProgress = { agent: '', sessions_done: 0, sessions_total: 0, bytes_done: 0, bytes_total: 0 };
    for (const w of work) {
      progress.sessions_total += w.todo.length;
      for (const c of w.todo) progress.bytes_total += c.bytes;
    }
    // Fresh sessions staged and waiting for their log's fsync (at most STAGED_WINDOW), published in order.
    const staged: { s: Staged; job: ImportJob }[] = [];
    const run: ImportRun = { store, opts, errors: result.errors, dbs };
    const failed = (job: ImportJob, e: unknown): void => {
      // A store failure (a full disk, a corrupt log): this session waits for the next run.
      job.stats.skipped++;
      const err = e as { code?: unknown; message?: unknown };
      result.errors.push({ agent: job.reader.agent, code: typeof err.code === 'string' ? err.code : 'INTERNAL', message: String(err.message ?? e), session: job.c.agentSession });
    };
    let published = false;
    const publishOldest = async (): Promise<void> => {
      const p = staged.shift();
      if (!p) return;
      try {
        try {
          await p.s.synced;
        } catch (e) {
          fs.rmSync(p.s.stage, { recursive: true, force: true });
          throw e;
        }
        // The log is durable: the rename makes it, its projections and its cursors visible at once.
        if (store.publishStaged(p.s.stage, p.s.id)) {
          published = true;
          p.s.count();
        }
        else importByCapture(run, p.job);
      } catch (e) {
        failed(p.job, e);
      }
    };
    try {
      for (const { reader, stats, todo } of work) {
        progress.agent = reader.agent;
        for (const c of todo) {
          if (opts.dryRun) {
            stats.imported++;
          } else {
            const onBytes = (bytes: number) => {
              progress.bytes_done += bytes;
              opts.progress?.(progress);
            };
            const job: ImportJob = { reader, c, stats, onBytes };
            try {
              const s = importOne(run, job);
              if (s) staged.push({ s, job });
            } catch (e) {
              failed(job, e);
            }
            if (staged.length > STAGED_WINDOW) await publishOldest();
          }
          progress.sessions_done++;
          if (opts.dryRun) progress.bytes_done += c.bytes;
          opts.progress?.(progress);
        }
      }
    } finally {
      while (staged.length) await publishOldest();
      // The renames are durable before the import reports them: one fsync of sessions/ a run
      // (each log was fsync'd before its rename; a rename not yet on disk after a crash would
      // leave the staged folder, which the next import removes and imports again).
      if (published) fsyncDir(store.sessionsDir);
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

/** What every session of one import shares. */
interface ImportRun {
  store: FsStore;
  opts: HistoryOptions;
  errors: HistoryProblem[];
  dbs: Map<string, OpenedDb>;
}

/** One session to import: its agent's reader, where it lies, its agent's counts, the progress line's callback. */
interface ImportJob {
  reader: TranscriptReader;
  c: Candidate;
  stats: AgentImportStats;
  onBytes: (n: number) => void;
}

function importOne(run: ImportRun, job: ImportJob): Staged | null {
  const { store, opts } = run;
  const { reader, c, stats, onBytes } = job;
  if (!c.db && reader.format === 'jsonl' && c.bytes <= FRESH_MAX_BYTES && !store.exists(c.agentSession)) {
    const r = importFresh(store, reader, c, opts, stats, createWithFor(reader, c, opts), onBytes);
    if (r === true) return null;
    if (r) return r;
  }
  importByCapture(run, job);
  return null;
}

/** session.created of an imported session: it rides in the same write (and fsync) as the session's first items. */
function createWithFor(reader: TranscriptReader, c: Candidate, opts: HistoryOptions) {
  const id = c.agentSession;
  const writer = importWriter(reader.agent);
  return (meta: SessionMeta) => {
    const title = titleFromPrompt(meta.firstPrompt ?? '') || (c.db?.session.title ? titleFromPrompt(c.db.session.title) : null) || `${reader.agent} ${id.slice(0, 8)}`;
    const at = isoMillisOf(meta.startedAt ?? c.db?.session.startedAt);
    return { title, workspace: workspaceOf(meta.cwd ?? c.db?.session.cwd, opts.readerEnv.home), writer, createdBy: `import:${reader.agent}`, ...(at ? { at } : {}) };
  };
}

/** The capture engine's way, window by window (a session already in baton, a large one, a database's, or a fresh one that lost its rename). */
function importByCapture(run: ImportRun, job: ImportJob): void {
  const { store, opts, errors, dbs } = run;
  const { reader, c, stats, onBytes } = job;
  const id = c.agentSession;
  const writer = importWriter(reader.agent);
  const createWith = createWithFor(reader, c, opts);
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
        // Before the marker: a kill in between writes it on the next run (the id finds it in the log).
        importEpisodeOnce(store, reader.agent, id, c.db.path, c.db.session, r, writer);
        // After the append (fsync'd): the session is complete up to this update of the database.
        const tdir = join(store.writeDir(id), 'transcripts');
        ensureDir(tdir);
        writeFileAtomic(markerPath(store, c), `${JSON.stringify({ v: 1, agent: reader.agent, agent_session: id, updated_at: c.db.session.updatedAt ?? null })}\n`, { mode: FILE_MODE });
      }
    }
  } else {
    for (const f of c.files) {
      for (;;) {
        const r = captureOnce({ store, sessionId: id, reader, path: f.path, agentSession: id, writer, now: opts.now(), readerEnv: opts.readerEnv, budget: opts.window ?? IMPORT_WINDOW, createWith, final: true });
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

/**
 * A file this session never had (a fresh session's cursor, its recent.json), written in place:
 * no temp file and rename (each a journal write on ext4). A crash mid-write leaves a file that
 * does not parse, which every reader takes as missing (a cursor: read the transcript again,
 * idempotence drops what is stored; recent.json: rebuilt from the log). There already: the
 * usual atomic replace.
 */
function writeNew(path: string, text: string): void {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    writeFileAtomic(path, text, { mode: FILE_MODE });
    return;
  }
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

/** One file of a fresh session, read to its end: its items (with their lines), its cursor, its skips. */
interface FreshFile {
  ref: FileRef;
  items: { item: TranscriptItem; line: number }[];
  cursor: Cursor;
  skips: Skip[];
  bytes: number;
}

/** Reads one whole file in windows, as captureOnce would from an empty cursor; null for anything out of the ordinary (the capture engine takes it). */
function readFresh(reader: JsonlReader, c: Candidate, f: FileRef, window: number, now: Date): FreshFile | null {
  let fd: number;
  try {
    fd = fs.openSync(f.real, AGENT_FILE_FLAGS);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    if (!st.isFile()) return null;
    const size = Number(st.size);
    const state: ParseState = newParseState();
    const nowIso = isoMillis(now);
    const out: FreshFile = { ref: f, items: [], skips: [], bytes: 0, cursor: { v: 1, agent: reader.agent, agent_session: c.agentSession, path: f.path, ino: String(st.ino), size, mtime_ms: Number(st.mtimeMs), offset: 0, line: 1, head_sha: '', head_len: 0, state, skipped: {}, updated_at: nowIso } };
    const buf = Buffer.allocUnsafe(Math.min(window, Math.max(size, 1)));
    let offset = 0;
    let line = 1;
    let head: Buffer | null = null;
    while (offset < size) {
      let n = 0;
      const want = Math.min(buf.length, size - offset);
      while (n < want) {
        const r = fs.readSync(fd, buf, n, want - n, offset + n);
        if (r === 0) break;
        n += r;
      }
      const bytes = buf.subarray(0, n);
      // A line longer than the window (or a file shorter than it said): the capture engine's rules.
      if (bytes.lastIndexOf(10) < 0 && offset + n < size) return null;
      if (offset === 0) head = Buffer.from(bytes.subarray(0, HEAD_BYTES));
      const chunk = parseJsonlChunk(reader, bytes, line, state);
      if (chunk.unknownVersion) return null;
      const meta = state.meta;
      for (const { raw, line: at } of chunk.items) {
        out.items.push({ item: boundItem(reader.agent, c.agentSession, raw, { workspace: meta.cwd ?? null, now: nowIso }), line: at });
      }
      out.skips.push(...chunk.skips);
      offset += chunk.consumed;
      line += chunk.lines;
      if (chunk.consumed === 0 || n < want) break;
    }
    // Read to its end: what the reader holds back (Codex's last answer waiting for its usage) is given out.
    if (offset >= size && reader.finish) {
      for (const raw of reader.finish(state)) out.items.push({ item: boundItem(reader.agent, c.agentSession, raw, { workspace: state.meta.cwd ?? null, now: nowIso }), line });
    }
    for (const sk of out.skips) out.cursor.skipped[sk.reason] = (out.cursor.skipped[sk.reason] ?? 0) + 1;
    const h = (head ?? Buffer.alloc(0)).subarray(0, Math.min(HEAD_BYTES, offset));
    out.cursor = { ...out.cursor, offset, line, ...headOf(h), ...tailOf(fd, offset, Buffer.alloc(0), offset), skipping: false };
    out.bytes = offset;
    return out;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** A run's span, ms, from its first record to its last (0 when either time is missing). */
const runDuration = (run: Pick<RunMark, 'at' | 'last'>): number => Math.max(0, (Date.parse(run.last ?? '') || 0) - (Date.parse(run.at ?? '') || 0));

/** An episode id as the hooks make them (`<provider>-<base36 ms>-<4 base36>`), here derived from the run, so the same run always gets the same id. */
export function importEpisodeId(agent: string, agentSession: string, path: string, run: Pick<RunMark, 'line' | 'at'>): string {
  const ms = Date.parse(run.at ?? '') || 0;
  const r = (Number.parseInt(sha256Hex(`${agentSession}\u0000${path}\u0000${run.line}`).slice(0, 8), 16) % 36 ** 4).toString(36).padStart(4, '0');
  return `${agent}-${ms.toString(36)}-${r}`;
}

/**
 * The episodes of a fresh session's files: one per run the reader told apart, else one for the
 * whole import. Each is the run's items between an episode.opened and an episode.closed.
 */
function withEpisodes(agent: string, c: Candidate, files: FreshFile[], writer: Writer): { inputs: EventInput[]; items: TranscriptItem[]; keys: Map<TranscriptItem, string>; episodes: number } {
  const inputs: EventInput[] = [];
  const items: TranscriptItem[] = [];
  // Each item's items.v2.idx line body (`<key> <digest>`), computed once.
  const keys = new Map<TranscriptItem, string>();
  let episodes = 0;
  const seen = new Map<string, { digest: string; input: number; item: number }>();
  const open = (run: RunMark, f: FreshFile, model: string | undefined): string => {
    const episode = importEpisodeId(agent, c.agentSession, f.ref.path, run);
    const payload: Record<string, unknown> = { episode, provider: agent, provider_session_id: c.agentSession, source: run.source, context_file: '', transcript_path: f.ref.path };
    if (model) payload.model = model;
    const at = isoMillisOf(run.at);
    if (at) payload.at = at;
    inputs.push({ type: 'episode.opened', surface: writer.surface, actor: writer.actor, payload });
    episodes++;
    return episode;
  };
  const close = (episode: string, run: RunMark): void => {
    const payload: Record<string, unknown> = { episode, reason: run.ended ?? 'imported', outcome: 'closed', duration_ms: runDuration(run), prompts: run.prompts };
    const at = isoMillisOf(run.last ?? run.at);
    if (at) payload.at = at;
    inputs.push({ type: 'episode.closed', surface: writer.surface, actor: writer.actor, payload });
  };
  const push = (item: TranscriptItem): void => {
    // As the capture engine: an item is taken once, at its first place, with its last content
    // (the agent wrote it again in the file, or in the session's other file).
    const key = itemKey(item);
    const digest = itemDigest(item);
    const had = seen.get(key);
    if (had) {
      if (had.digest === digest) return;
      keys.delete(items[had.item]);
      keys.set(item, `${key} ${digest}`);
      items[had.item] = item;
      inputs[had.input] = { ...inputs[had.input], payload: item as unknown as Record<string, unknown> };
      had.digest = digest;
      return;
    }
    seen.set(key, { digest, input: inputs.length, item: items.length });
    keys.set(item, `${key} ${digest}`);
    inputs.push({ type: 'transcript.item', surface: writer.surface, actor: actorOf(item.role), payload: item as unknown as Record<string, unknown>, preRedacted: true });
    items.push(item);
  };
  const told = files.some((f) => (f.cursor.state.meta.runs?.length ?? 0) > 0);
  if (!told) {
    // The agent records no runs: one episode for the import, from its first record to its last.
    const all = files.flatMap((f) => f.items);
    const times = all.map((x) => x.item.at).filter((t): t is string => !!t);
    const run: RunMark = { line: 1, source: 'import', at: times[0] ?? files[0].cursor.state.meta.startedAt ?? null, last: times.at(-1) ?? null, prompts: all.filter((x) => x.item.role === 'user' && x.item.kind === 'message').length };
    const ep = open(run, files[0], files[0].cursor.state.meta.model);
    for (const x of all) push(x.item);
    close(ep, run);
    return { inputs, items, keys, episodes };
  }
  for (const f of files) {
    const runs = f.cursor.state.meta.runs ?? [];
    let i = 0;
    for (let r = 0; r < runs.length; r++) {
      const next = runs[r + 1]?.line ?? Number.POSITIVE_INFINITY;
      const ep = open(runs[r], f, f.cursor.state.meta.model);
      for (; i < f.items.length && (f.items[i].line < next || r === runs.length - 1); i++) push(f.items[i].item);
      close(ep, runs[r]);
    }
    for (; i < f.items.length; i++) push(f.items[i].item);
  }
  return { inputs, items, keys, episodes };
}

/**
 * A session not yet in baton, imported in one append: session.created, then per run of the
 * agent an episode.opened, the run's items and an episode.closed (one write, one fsync); then
 * the capture engine's projections (items.v2.idx, recent.json, under the mutex) and, last, each
 * file's cursor, so "complete" still follows durability. False when it wrote nothing and the
 * capture engine should take the session (it appeared meanwhile, a file is out of the
 * ordinary, or there is nothing to hold).
 */
function importFresh(
  store: FsStore,
  reader: JsonlReader,
  c: Candidate,
  opts: HistoryOptions,
  stats: AgentImportStats,
  createWith: (meta: SessionMeta) => ReturnType<NonNullable<Parameters<typeof captureOnce>[0]['createWith']>>,
  onBytes: (n: number) => void,
): boolean | Staged {
  const now = opts.now();
  const files: FreshFile[] = [];
  for (const f of c.files) {
    const r = readFresh(reader, c, f, opts.window ?? IMPORT_WINDOW, now);
    if (!r) return false;
    files.push(r);
  }
  if (!files.some((f) => f.items.length > 0)) return false;
  const writer = importWriter(reader.agent);
  const { inputs, items, keys } = withEpisodes(reader.agent, c, files, writer);
  const id = c.agentSession;
  const createOpts = createWith(files[0].cursor.state.meta);
  // A transcript that names no start time began with its first item.
  if (!createOpts.at && items[0]?.at) createOpts.at = items[0].at;
  // Projections, as the capture engine keeps them (a lost one is rebuilt from the log).
  const projections = (dir: string, all: StoredEvent[]): void => {
    const tdir = join(dir, TRANSCRIPTS_DIR);
    const logBytes = fs.statSync(join(dir, LOG_FILE)).size;
    const lines: string[] = [];
    for (const e of all) {
      if (e.type !== 'transcript.item') continue;
      const item = e.payload as unknown as TranscriptItem;
      lines.push(`${keys.get(item) ?? `${itemKey(item)} ${itemDigest(item)}`} ${e.seq}\n`);
    }
    appendDurable(join(tdir, INDEX_FILE), `${lines.join('')}@ ${logBytes}\n`, false);
    try {
      writeNew(join(tdir, RECENT_FILE), selfCheckedText(foldRecent(emptyRecent(), all)));
    } catch {}
  };
  // What the session adds to the stats once it is in baton (not before: a lost rename adds
  // nothing); numbers only, so a staged session waiting for its fsync holds none of its items.
  const n = { items: items.length, dups: files.reduce((k, f) => k + f.items.length, 0) - items.length, superseded: items.filter((x) => x.supersedes !== undefined).length };
  const skips = files.map((f) => ({ path: f.ref.path, skips: f.skips }));
  const read = files.reduce((k, f) => k + f.bytes, 0);
  const count = (): void => {
    for (const f of skips) noteSkips(stats, f.path, { skips: f.skips } as CaptureResult);
    stats.bytes_read += read;
    onBytes(read);
    stats.items += n.items;
    stats.duplicates += n.dups;
    stats.superseded += n.superseded;
    stats.imported++;
  };
  if (!fs.lstatSync(store.dir(id), { throwIfNoEntry: false })) {
    // No folder yet: the whole session is laid out in a hidden folder; its log is fsync'd on the
    // thread pool while the next session is parsed, and only then one rename makes it visible
    // (no mutex: nobody else can see it; a session made meanwhile wins the rename and the
    // capture engine takes this one, ADR 0082).
    const stage = store.stageSession(id);
    try {
      ensureDir(join(stage, TRANSCRIPTS_DIR));
      const all = store.createStaged(stage, id, createOpts, inputs);
      // manifest.json and context.md are left to their next reader (ADR 0082).
      projections(stage, all);
      for (const f of files) writeNew(cursorPath(stage, reader.agent, id, f.ref.path), cursorText(f.cursor));
    } catch (e) {
      fs.rmSync(stage, { recursive: true, force: true });
      throw e;
    }
    const synced = store.syncStaged(stage);
    // Settled by publish; a rejection is handled there.
    synced.catch(() => {});
    return { id, stage, synced, count };
  }
  // The folder is there (a stub's cursor, a crash between mkdir and the first append): in place, under the mutex.
  store.prepareSession(id);
  const dir = store.writeDir(id);
  ensureDir(join(dir, TRANSCRIPTS_DIR));
  const events = store.locked(id, (): StoredEvent[] | null => {
    const all = store.ensureWithUnderMutex(id, createOpts, inputs, { sidecar: false });
    if (all) projections(dir, all);
    return all;
  });
  if (!events) return false;
  store.afterCreate(id, events, { manifest: false });
  const sessionDir = store.dir(id);
  for (const f of files) writeNew(cursorPath(sessionDir, reader.agent, id, f.ref.path), cursorText(f.cursor));
  count();
  return true;
}

/** A fresh session written into a hidden folder, waiting for its log's fsync before the rename that publishes it. */
interface Staged {
  id: string;
  stage: string;
  synced: Promise<void>;
  /** Adds the session to the stats (once published). */
  count: () => void;
}

/**
 * A database session (opencode, Kilo: no runs in what baton reads) gets one episode for its
 * import, appended after its items the first time it is imported: not when the hooks have
 * recorded episodes there (episodes.json, their cache, exists) or the episode is in the log.
 */
function importEpisodeOnce(store: FsStore, agent: string, id: string, dbPath: string, s: DbSession, r: CaptureResult, writer: Writer): void {
  const dir = store.dir(id);
  if (fs.existsSync(join(dir, 'episodes.json'))) return;
  const run: RunMark = { line: 1, source: 'import', at: s.startedAt ?? null, last: s.updatedAt ?? null, prompts: 0 };
  const episode = importEpisodeId(agent, id, dbPath, run);
  const events = store.locked(id, (): StoredEvent[] => {
    const log = readFileOrNull(join(dir, LOG_FILE));
    if (!log || log.includes(`"episode":${JSON.stringify(episode)}`)) return [];
    const opened: Record<string, unknown> = { episode, provider: agent, provider_session_id: id, source: 'import', context_file: '' };
    if (r.meta.model) opened.model = r.meta.model;
    const closed: Record<string, unknown> = { episode, reason: 'imported', outcome: 'closed', duration_ms: runDuration(run), prompts: 0 };
    const openedAt = isoMillisOf(run.at);
    const closedAt = isoMillisOf(run.last ?? run.at);
    if (openedAt) opened.at = openedAt;
    if (closedAt) closed.at = closedAt;
    return store.appendUnderMutex(
      id,
      [
        { type: 'episode.opened', surface: writer.surface, actor: writer.actor, payload: opened },
        { type: 'episode.closed', surface: writer.surface, actor: writer.actor, payload: closed },
      ],
      writer,
    );
  });
  if (events.length) store.afterAppend(id, events);
}
