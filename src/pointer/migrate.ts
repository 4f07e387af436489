// `baton pointer migrate FILE [--apply]` (pointer.md): converts a v1 envelope
// {"envelope_version":1,"session_id","task_id","text","written_at"} into a v3 state.
// v1 is never read at runtime: this is the only reader. Dry-run by default (nothing is
// written, not even a folder); --apply writes the state into the session's folder in the
// store through the same CAS commit as a publish (journal record, pointer.published event),
// and refuses (STATE_EXISTS) when the session already has a pointer state.
import { fail, isBatonError } from '../core/errors.ts';
import { sha256Hex } from '../core/hash.ts';
import { redactDefault } from '../core/redact.ts';
import { SESSION_ID_RE } from '../core/ids.ts';
import { StrictJsonFailure, parseStrictJson } from '../core/strict-json.ts';
import { isoSeconds } from '../core/time.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { describeWorkspace } from '../store/workspace.ts';
import { commitUnderMutex, pointerError } from './cas.ts';
import { type PointerState, type RandomBytes, UUID_V4_RE, newGeneration, normalizeText, readState, statePath, textProblem } from './state.ts';

/** Keeps a migrated generation apart from any other digest of the same bytes. */
const MIGRATE_SALT = new TextEncoder().encode('baton pointer migrate v1 -> v3\n');

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export const ENVELOPE_FIELDS = ['envelope_version', 'session_id', 'task_id', 'text', 'written_at'];

function bad(message: string): never {
  fail('INVALID_ENVELOPE', message);
}

/**
 * The v3 state a v1 envelope becomes: revision 1, CLEAN, updated_at = written_at, and a
 * generation made from the envelope's bytes (so the dry run prints the generation --apply
 * writes; `random`, when given, draws one instead).
 */
export function envelopeToState(raw: Uint8Array, random?: RandomBytes): PointerState {
  let o: unknown;
  try {
    o = parseStrictJson(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch (e) {
    bad(e instanceof StrictJsonFailure ? `the envelope is not strict JSON: ${e.message}` : 'the envelope is not valid UTF-8');
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) bad('the envelope must be one JSON object');
  const r = o as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!ENVELOPE_FIELDS.includes(k)) bad(`unknown field ${k}`);
  for (const k of ENVELOPE_FIELDS) if (!Object.hasOwn(r, k)) bad(`missing field ${k}`);
  if (r.envelope_version !== 1) bad('envelope_version must be 1');
  if (typeof r.session_id !== 'string' || !SESSION_ID_RE.test(r.session_id)) bad('invalid session_id');
  const task = typeof r.task_id === 'string' ? r.task_id.toLowerCase() : '';
  if (!UUID_V4_RE.test(task)) bad('task_id must be a UUID v4');
  if (typeof r.text !== 'string') bad('text must be a string');
  // Secrets never reach state.json, whatever way the text comes in (store.md, Secrets).
  const text = redactDefault(normalizeText(r.text)).text;
  const p = textProblem(text);
  if (p) bad(`text ${p}`);
  const t = typeof r.written_at === 'string' ? Date.parse(r.written_at) : Number.NaN;
  if (!Number.isFinite(t)) bad('written_at must be a date and time');
  return {
    schema_version: 3,
    session_id: r.session_id,
    generation: random ? newGeneration(random) : `g-${sha256Hex(concatBytes(MIGRATE_SALT, raw)).slice(0, 32)}`,
    revision: 1,
    status: 'CLEAN',
    task_id: task,
    pointer_text: text,
    updated_at: isoSeconds(new Date(t)),
  };
}

export interface MigrateResult {
  applied: boolean;
  path: string;
  state: PointerState;
  journal_appended: boolean | null;
}

/** Dry run: what would be written where; nothing touches the disk. */
export function planMigration(store: FsStore, raw: Uint8Array, random?: RandomBytes): MigrateResult {
  const state = envelopeToState(raw, random);
  return { applied: false, path: statePath(store.dir(state.session_id)), state, journal_appended: null };
}

/** --apply: creates the session when needed and writes the state as its revision 1. */
export function applyMigration(store: FsStore, raw: Uint8Array, writer: Writer, opts: { random?: RandomBytes; now?: Date; cwd?: string } = {}): MigrateResult {
  const state = envelopeToState(raw, opts.random);
  const id = state.session_id;
  const dir = store.dir(id);
  const exists = (): never => fail('STATE_EXISTS', `session ${id} already has a pointer state; migrate writes only where there is none`, { path: statePath(dir) });
  const now = opts.now ?? store.clock();
  try {
    if (!store.exists(id)) {
      if (readState(dir, id).schema !== 0) exists();
      store.ensure(id, { title: `pointer ${id.slice(0, 8)}`, workspace: describeWorkspace(opts.cwd ?? process.cwd()), writer, createdBy: 'cli' });
    }
    const c = store.locked(id, () => {
      const cur = readState(dir, id);
      if (cur.schema !== 0) exists();
      return commitUnderMutex(store, cur, state, writer, 'migrate', now);
    });
    store.afterAppend(id, c.events);
    return { applied: true, path: statePath(dir), state, journal_appended: c.journal_appended };
  } catch (e) {
    if (isBatonError(e) && e.code === 'STATE_EXISTS') throw e;
    const pe = pointerError(e);
    fail(pe.code, pe.message, { cause: pe.cause });
  }
}
