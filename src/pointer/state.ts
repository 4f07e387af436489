// state.json (pointer.md, schema v3): the task pointer of one session.
// Source of truth for the pointer: this file in the session's folder. Who writes: only the
// CAS (cas.ts), under the session mutex, by atomic replace (unique temp, fsync, read back
// and validate, rename, fsync the folder). What a crash leaves: the old state or the new
// one, never a mix; at worst a stray `.state.json.*.tmp` that no reader looks at.
// Readers accept v3, and v2 (v3 without `generation`, reported as LEGACY_V2); absent is ABSENT/0.
// Lean on purpose: it runs on the hook path (no schema library, no strict parser).
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { BatonError, fail } from '../core/errors.ts';
import { SESSION_ID_RE } from '../core/ids.ts';
import { ISO_SECONDS_RE } from '../core/time.ts';
import { decodeUtf8Strict } from '../core/utf8.ts';
import { readFileBytes, writeFileAtomic } from '../store/fsutil.ts';

export const STATE_FILE = 'state.json';
export const MAX_POINTER_TEXT_BYTES = 8192;
export const GENERATION_RE = /^g-[0-9a-f]{32}$/;
export const UUID_V4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ABSENT = 'ABSENT';
export const LEGACY_V2 = 'LEGACY_V2';

export type PointerStatus = 'CLEAN' | 'DIRTY' | 'CLEARED';
export const STATUSES: readonly PointerStatus[] = ['CLEAN', 'DIRTY', 'CLEARED'];

/** The v3 file, field order as written. */
export interface PointerState {
  schema_version: 3;
  session_id: string;
  generation: string;
  revision: number;
  status: PointerStatus;
  task_id: string | null;
  pointer_text: string | null;
  updated_at: string;
}

/** What a reader saw: a v3 state, a v2 state (generation LEGACY_V2) or nothing (ABSENT/0). */
export interface Observed {
  schema: 0 | 2 | 3;
  session_id: string;
  generation: string;
  revision: number;
  status: PointerStatus | null;
  task_id: string | null;
  pointer_text: string | null;
  updated_at: string | null;
  /** The file's bytes as read (null when absent): what a failed write puts back. */
  raw: Buffer | null;
}

export type RandomBytes = (n: number) => Uint8Array;
/**
 * The kernel's CSPRNG read from /dev/urandom: Web Crypto or node:crypto would load the
 * crypto modules into every hook process that draws a generation or a task id.
 */
export const systemRandom: RandomBytes = (n) => {
  const out = new Uint8Array(n);
  try {
    const fd = fs.openSync('/dev/urandom', 'r');
    try {
      if (fs.readSync(fd, out, 0, n, null) === n) return out;
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
  return globalThis.crypto.getRandomValues(out);
};

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export function newGeneration(random: RandomBytes = systemRandom): string {
  return `g-${hex(random(16)).slice(0, 32)}`;
}

/** A lower-case UUID v4 from 16 random bytes. */
export function newTaskId(random: RandomBytes = systemRandom): string {
  const b = Buffer.from(random(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** CRLF and lone CR become LF (pointer.md). */
export function normalizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** String.prototype.isWellFormed (ES2024, in every Node baton runs on; the lib here is ES2022): no lone surrogate, without a regular expression's compile on a hook's every publish. */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** Why a pointer text is not acceptable (after normalisation), or null. */
export function textProblem(text: unknown): string | null {
  if (typeof text !== 'string') return 'must be a string';
  if (text.length === 0) return 'must not be empty';
  if (!isWellFormed(text)) return 'must be well-formed Unicode (no lone surrogates)';
  if (utf8Bytes(text) > MAX_POINTER_TEXT_BYTES) return `must be at most ${MAX_POINTER_TEXT_BYTES} UTF-8 bytes`;
  return null;
}

export function isIsoSeconds(s: unknown): s is string {
  return typeof s === 'string' && ISO_SECONDS_RE.test(s) && Number.isFinite(Date.parse(s));
}

const V3_KEYS = ['schema_version', 'session_id', 'generation', 'revision', 'status', 'task_id', 'pointer_text', 'updated_at'];
const V2_KEYS = V3_KEYS.filter((k) => k !== 'generation');

/** Checks a parsed state object against schema v3 (or v2); returns the first problem or null. */
export function stateProblem(o: unknown, sessionId?: string): string | null {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return 'not a JSON object';
  const s = o as Record<string, unknown>;
  const v = s.schema_version;
  if (v !== 3 && v !== 2) return `unsupported schema_version ${JSON.stringify(v)}`;
  const keys = v === 3 ? V3_KEYS : V2_KEYS;
  for (const k of Object.keys(s)) if (!keys.includes(k)) return `unknown field ${k}`;
  for (const k of keys) if (!(k in s)) return `missing field ${k}`;
  if (typeof s.session_id !== 'string' || !SESSION_ID_RE.test(s.session_id)) return 'invalid session_id';
  if (sessionId !== undefined && s.session_id !== sessionId) return `session_id ${s.session_id} is not this session (${sessionId})`;
  if (v === 3 && (typeof s.generation !== 'string' || !GENERATION_RE.test(s.generation))) return 'invalid generation';
  if (typeof s.revision !== 'number' || !Number.isSafeInteger(s.revision) || s.revision < 1) return 'invalid revision';
  if (!STATUSES.includes(s.status as PointerStatus)) return 'invalid status';
  if (s.status === 'CLEARED') {
    if (s.task_id !== null) return 'task_id must be null when CLEARED';
    if (s.pointer_text !== null) return 'pointer_text must be null when CLEARED';
  } else {
    if (typeof s.task_id !== 'string' || !UUID_V4_RE.test(s.task_id)) return 'invalid task_id';
    const p = textProblem(s.pointer_text);
    if (p) return `pointer_text ${p}`;
    if (v === 3 && (s.pointer_text as string).includes('\r')) return 'pointer_text is not LF-normalised';
  }
  if (!isIsoSeconds(s.updated_at)) return 'invalid updated_at';
  return null;
}

export function absentState(sessionId: string): Observed {
  return { schema: 0, session_id: sessionId, generation: ABSENT, revision: 0, status: null, task_id: null, pointer_text: null, updated_at: null, raw: null };
}

export function corrupt(message: string): never {
  fail('STATE_CORRUPT', message);
}

/** Parses state bytes; STATE_CORRUPT when they are not a valid v3 or v2 state of this session. */
export function parseState(raw: Buffer, sessionId: string): Observed {
  let o: unknown;
  try {
    o = JSON.parse(decodeUtf8Strict(raw));
  } catch (e) {
    corrupt(`state.json is not valid UTF-8 JSON: ${(e as Error).message}`);
  }
  const problem = stateProblem(o, sessionId);
  if (problem) corrupt(`state.json: ${problem}`);
  const s = o as Record<string, unknown>;
  const legacy = s.schema_version === 2;
  return {
    schema: legacy ? 2 : 3,
    session_id: sessionId,
    generation: legacy ? LEGACY_V2 : (s.generation as string),
    revision: s.revision as number,
    status: s.status as PointerStatus,
    task_id: s.task_id as string | null,
    pointer_text: typeof s.pointer_text === 'string' ? normalizeText(s.pointer_text) : null,
    updated_at: s.updated_at as string,
    raw,
  };
}

export function statePath(dir: string): string {
  return join(dir, STATE_FILE);
}

/** Reads the session's state: ABSENT/0 when there is none, STATE_CORRUPT when it cannot be used. */
export function readState(dir: string, sessionId: string): Observed {
  let raw: Buffer;
  try {
    raw = readFileBytes(statePath(dir));
  } catch (e) {
    // A symbolic link is WS010 (readFileBytes), like every store file: never read through.
    if (e instanceof BatonError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    // Only a missing file is "no pointer"; a store that cannot be read (ENOTDIR, EACCES, EIO)
    // must surface as an error, never as a fresh start.
    if (code === 'ENOENT') return absentState(sessionId);
    corrupt(`state.json cannot be read: ${code ?? (e as Error).message}`);
  }
  return parseState(raw, sessionId);
}

/** The bytes of a v3 state: one JSON object, fields in the spec's order, a final newline. */
export function encodeState(s: PointerState): string {
  const ordered: PointerState = {
    schema_version: 3,
    session_id: s.session_id,
    generation: s.generation,
    revision: s.revision,
    status: s.status,
    task_id: s.task_id,
    pointer_text: s.pointer_text,
    updated_at: s.updated_at,
  };
  return `${JSON.stringify(ordered)}\n`;
}

export function observedOf(s: PointerState, raw: Buffer | null = null): Observed {
  return { schema: 3, session_id: s.session_id, generation: s.generation, revision: s.revision, status: s.status, task_id: s.task_id, pointer_text: s.pointer_text, updated_at: s.updated_at, raw };
}

/**
 * Writes a v3 state atomically and durably; the temp file is read back and validated
 * before the rename. WRITE_FAILED (old state kept, temp removed) on any failure.
 */
export function writeState(dir: string, s: PointerState): Buffer {
  const problem = stateProblem(s, s.session_id);
  if (problem) fail('WRITE_FAILED', `refusing to write an invalid state: ${problem}`);
  const data = encodeState(s);
  try {
    writeFileAtomic(statePath(dir), data, {
      durable: true,
      verify: (read) => {
        if (read.toString('utf8') !== data) throw new Error('the state read back differs from the state written');
        const p = stateProblem(JSON.parse(read.toString('utf8')), s.session_id);
        if (p) throw new Error(`the state read back is invalid: ${p}`);
      },
    });
  } catch (e) {
    if (e instanceof BatonError) throw e;
    fail('WRITE_FAILED', `state.json could not be written: ${(e as Error).message}`, { cause: (e as NodeJS.ErrnoException).code ?? null });
  }
  return Buffer.from(data);
}

/** Puts back what a failed commit replaced (bytes, or no file). Best effort. */
export function restoreState(dir: string, raw: Buffer | null): void {
  try {
    if (raw) writeFileAtomic(statePath(dir), raw, { durable: true });
    else fs.unlinkSync(statePath(dir));
  } catch {}
}
