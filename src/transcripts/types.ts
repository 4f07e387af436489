// What a transcript reader is (transcripts.md): one file per agent that knows where that agent
// keeps its sessions and turns its records into RawItems. Pure functions over text plus a few
// path rules: no library, no writes, safe on the hook path (the capture at turn end). The
// generic machinery (capture.ts: cursor, bounded reads, bad lines counted, idempotence) is
// shared by every reader; a reader never reads a file itself.
import type { RawItem, TranscriptAgent } from '../core/transcript.ts';

/** Where the agent's files are: the user's HOME and the environment the agent would see. */
export interface ReaderEnv {
  home: string;
  env: NodeJS.ProcessEnv;
}

/** What a reader learns of a session while parsing it (kept in the capture cursor between runs). */
export interface SessionMeta {
  /** The agent's own session id, when the file names it. */
  agentSession?: string;
  /** The session's working directory. */
  cwd?: string;
  /** The first user prompt (its first line makes an imported session's title). */
  firstPrompt?: string;
  /** The agent version or format version the file names. */
  version?: string;
  /** The model last seen (an assistant item without its own model gets this one). */
  model?: string;
  /** The time of the first record, ISO. */
  startedAt?: string;
  /**
   * The agent's runs (one process each: a start, each resume) where the file tells them apart,
   * oldest first, at most MAX_RUNS (later ones fold into the last); absent where it does not.
   * History import records an episode per run (docs/history.md).
   */
  runs?: RunMark[];
}

/** One run of the agent seen in its transcript. */
export interface RunMark {
  /** The first line whose items belong to this run. */
  line: number;
  /** `startup` for the session's first run, `resume` for a later one (the hooks' SessionStart sources). */
  source: string;
  /** ISO times of its first and last conversation record (null when the file gives none). */
  at: string | null;
  last: string | null;
  /** The user's prompts (turns) in it. */
  prompts: number;
  /** A turn is in progress (the reader's own bookkeeping: a marker seen mid-turn starts no run). */
  busy?: boolean;
  /** The run ended in order (the agent wrote its shutdown), with this reason. */
  ended?: string;
}

/** Mutable per-file state one parse run hands the next through the cursor: JSON only. */
export interface ParseState {
  meta: SessionMeta;
  /** The reader's own memory (e.g. call id → tool name), JSON-serialisable and small (keep it bounded). */
  own: Record<string, unknown>;
}

/** A line the reader cannot use: skipped and counted with this reason, never a partial item. */
export class SkipLine extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/** A file in a format version the reader does not know: the whole file is skipped, naming the version seen. */
export class UnknownFormat extends Error {
  readonly version: string;
  constructor(version: string) {
    super(`unknown transcript format version ${JSON.stringify(version)}`);
    this.version = version;
  }
}

/** One session file found in the agent's store (history scan/import). */
export interface SessionFile {
  /** Absolute path of the transcript file. */
  path: string;
  /** The agent's session id, when the path names it (else the reader's meta finds it while parsing). */
  agentSession?: string;
}

interface ReaderBase {
  agent: TranscriptAgent;
  /** The folders the agent keeps its sessions in, absolute (a path outside them, or a link out of them, is never read). */
  roots(re: ReaderEnv): string[];
  /** The session files under the roots, for history scan/import (readdir only, no file reads). */
  list(re: ReaderEnv): Iterable<SessionFile>;
  /** The transcript of an agent session when the hook payload names none; null when not found. */
  locate(re: ReaderEnv, agentSession: string, cwd: string | null): string | null;
}

/** A reader of an append-only JSON-lines file (Claude Code, Codex, Qwen, ...): one call per complete line. */
export interface JsonlReader extends ReaderBase {
  format: 'jsonl';
  /**
   * The items of one parsed line (none is fine: metadata lines, events baton does not keep).
   * `line` is the 1-based line number (an item id for agents whose lines have none).
   * Throws SkipLine for a shape it does not know, UnknownFormat for a file version it does not know.
   */
  parseLine(value: unknown, line: number, state: ParseState): RawItem[];
  /**
   * The items the reader still holds back (Codex: the last answer, waiting for its usage line)
   * when nothing more will come: the agent's session ended, or an import read the file to its end.
   */
  finish?(state: ParseState): RawItem[];
}

/** A reader of a file the agent rewrites whole (Gemini CLI's chat JSON): every item of the document, each run. */
export interface DocumentReader extends ReaderBase {
  format: 'document';
  /** Every item of the parsed document; idempotence drops those already stored. */
  parseDocument(value: unknown, state: ParseState): RawItem[];
}

/** The few calls of a better-sqlite3 handle a database reader makes (injected: the reader imports no library). */
export interface Db {
  prepare(sql: string): { all(...params: unknown[]): unknown[] };
}

/** One session in an agent's database (history scan/import). */
export interface DbSession {
  agentSession: string;
  cwd?: string;
  title?: string;
  /** ISO times of its first and last record. */
  startedAt?: string;
  updatedAt?: string;
}

/**
 * A reader of an agent that keeps its sessions in a database the hook cannot open (opencode and
 * Kilo: SQLite). At the hook, baton's own plugin inside the agent sends the turn's records in the
 * payload (`transcript_items`, an array); for history import, the database is read through a
 * handle the caller opens (read-only) and injects. Both give the same entries, parsed one by one.
 */
export interface PayloadReader extends ReaderBase {
  format: 'payload';
  /** The items of one entry (one message of the agent with its parts); throws SkipLine for a shape it does not know. */
  parseEntry(value: unknown, index: number, state: ParseState): RawItem[];
  /** The sessions in a database file list() found. */
  databaseSessions(db: Db): DbSession[];
  /** Every entry of one session, oldest first, in the payload's shape. */
  databaseEntries(db: Db, agentSession: string): unknown[];
}

export type TranscriptReader = JsonlReader | DocumentReader | PayloadReader;
