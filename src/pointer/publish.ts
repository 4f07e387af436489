// The publisher (pointer.md, "Publishing"): one request in, one receipt out, by
// compare-and-swap on (generation, revision) under the session mutex.
// Every refusal — a bad request, a stale expectation, a corrupt state, a busy mutex, a
// failed write — leaves state.json, the journal and the log as they were.
// A request for a session baton does not know yet (the pointer's session id is the
// provider's session id) creates that session first (created_by cli), but only when the
// CAS would accept it: a refused request creates nothing.
// Secrets in pointer_text are redacted before anything is written (store.md, Secrets): the
// state, the journal's digest and byte count, context.md and every injected context see the
// redacted text; the success receipt adds `redacted` (how many) when there were any.
import { redactDefault } from '../core/redact.ts';
import { parseStrictJson, StrictJsonFailure } from '../core/strict-json.ts';
import { SESSION_ID_RE } from '../core/ids.ts';
import type { FsStore, Writer } from '../store/store.ts';
import { describeWorkspace } from '../store/workspace.ts';
import { commitUnderMutex, pointerError, type Commit, type PointerErrorCode } from './cas.ts';
import { compareCas, nextState } from './rules.ts';
import {
  ABSENT,
  GENERATION_RE,
  LEGACY_V2,
  type Observed,
  type PointerStatus,
  type RandomBytes,
  STATUSES,
  UUID_V4_RE,
  newGeneration,
  normalizeText,
  readState,
  systemRandom,
  textProblem,
} from './state.ts';

export const MAX_REQUEST_BYTES = 12288;
export const REQUEST_FIELDS = ['schema_version', 'session_id', 'expected_generation', 'expected_revision', 'task_id', 'target_status', 'pointer_text'] as const;

export interface PublishRequest {
  schema_version: 3;
  session_id: string;
  expected_generation: string;
  expected_revision: number;
  task_id: string | null;
  target_status: PointerStatus;
  /** LF-normalised. */
  pointer_text: string | null;
}

export type RequestDetail =
  | 'REQUEST_TOO_LARGE'
  | 'INVALID_UTF8'
  | 'INVALID_JSON'
  | 'NOT_AN_OBJECT'
  | 'DUPLICATE_FIELD'
  | 'UNKNOWN_FIELD'
  | 'MISSING_FIELD'
  | `INVALID_FIELD:${string}`;

export interface RequestProblem {
  detail: RequestDetail;
  message: string;
  field?: string;
}

export type ParsedRequest = { ok: true; request: PublishRequest } | { ok: false; problem: RequestProblem };

const invalid = (field: string, message: string): ParsedRequest => ({ ok: false, problem: { detail: `INVALID_FIELD:${field}`, field, message: `${field} ${message}` } });

/** Validates the raw stdin bytes of a publish request (pure). */
export function parseRequest(raw: Uint8Array): ParsedRequest {
  if (raw.length > MAX_REQUEST_BYTES) {
    return { ok: false, problem: { detail: 'REQUEST_TOO_LARGE', message: `the request is over ${MAX_REQUEST_BYTES} bytes` } };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return { ok: false, problem: { detail: 'INVALID_UTF8', message: 'the request is not valid UTF-8' } };
  }
  let o: unknown;
  try {
    o = parseStrictJson(text);
  } catch (e) {
    if (e instanceof StrictJsonFailure && e.failure.kind === 'DUPLICATE_FIELD') {
      return { ok: false, problem: { detail: 'DUPLICATE_FIELD', field: e.failure.key, message: `field ${JSON.stringify(e.failure.key)} appears more than once` } };
    }
    return { ok: false, problem: { detail: 'INVALID_JSON', message: `the request is not JSON: ${(e as Error).message}` } };
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) {
    return { ok: false, problem: { detail: 'NOT_AN_OBJECT', message: 'the request must be one JSON object' } };
  }
  const r = o as Record<string, unknown>;
  for (const k of Object.keys(r)) {
    if (!(REQUEST_FIELDS as readonly string[]).includes(k)) {
      return { ok: false, problem: { detail: 'UNKNOWN_FIELD', field: k, message: `unknown field ${JSON.stringify(k)}; the fields are ${REQUEST_FIELDS.join(', ')}` } };
    }
  }
  for (const k of REQUEST_FIELDS) {
    if (!Object.hasOwn(r, k)) return { ok: false, problem: { detail: 'MISSING_FIELD', field: k, message: `missing field ${k}` } };
  }
  if (r.schema_version !== 3) return invalid('schema_version', 'must be 3');
  if (typeof r.session_id !== 'string' || !SESSION_ID_RE.test(r.session_id)) return invalid('session_id', 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$');
  const g = r.expected_generation;
  if (typeof g !== 'string' || !(GENERATION_RE.test(g) || g === ABSENT || g === LEGACY_V2)) {
    return invalid('expected_generation', 'must be g- and 32 lower-case hex digits, ABSENT or LEGACY_V2');
  }
  const rev = r.expected_revision;
  if (typeof rev !== 'number' || !Number.isSafeInteger(rev) || rev < 0) return invalid('expected_revision', 'must be an integer >= 0');
  if (!STATUSES.includes(r.target_status as PointerStatus)) return invalid('target_status', 'must be CLEAN, DIRTY or CLEARED');
  const status = r.target_status as PointerStatus;
  let pointerText: string | null = null;
  if (status === 'CLEARED') {
    if (r.task_id !== null) return invalid('task_id', 'must be null when target_status is CLEARED');
    if (r.pointer_text !== null) return invalid('pointer_text', 'must be null when target_status is CLEARED');
  } else {
    if (typeof r.task_id !== 'string' || !UUID_V4_RE.test(r.task_id)) return invalid('task_id', `must be a lower-case UUID v4 when target_status is ${status}`);
    if (typeof r.pointer_text !== 'string') return invalid('pointer_text', `must be a string when target_status is ${status}`);
    pointerText = normalizeText(r.pointer_text);
    const p = textProblem(pointerText);
    if (p) return invalid('pointer_text', p);
  }
  return {
    ok: true,
    request: {
      schema_version: 3,
      session_id: r.session_id,
      expected_generation: g,
      expected_revision: rev,
      task_id: r.task_id as string | null,
      target_status: status,
      pointer_text: pointerText,
    },
  };
}

export type Receipt =
  | {
      ok: true;
      session_id: string;
      generation: string;
      revision: number;
      status: PointerStatus;
      journal_appended: boolean;
      journal_error: 'JOURNAL_APPEND_FAILED' | null;
      /** Secrets replaced by `<redacted>` in the stored text; present only when > 0. */
      redacted?: number;
    }
  | { ok: false; error: 'STALE_GENERATION' | 'STALE_REVISION'; current_generation: string; current_revision: number }
  | { ok: false; error: 'INVALID_REQUEST'; detail: RequestDetail; field?: string; message: string }
  | { ok: false; error: PointerErrorCode; message: string; cause?: string | null };

export function requestRefusal(p: RequestProblem): Receipt {
  return { ok: false, error: 'INVALID_REQUEST', detail: p.detail, ...(p.field !== undefined ? { field: p.field } : {}), message: p.message };
}

export interface PublishOptions {
  writer: Writer;
  /** Time of the write; default the store's clock. */
  now?: Date;
  randomBytes?: RandomBytes;
  /** Workspace of a session the publish creates; default process.cwd(). */
  cwd?: string;
}

function stale(cur: Observed, code: 'STALE_GENERATION' | 'STALE_REVISION'): Receipt {
  return { ok: false, error: code, current_generation: cur.generation, current_revision: cur.revision };
}

/** The request with its pointer text redacted, or the refusal when the redacted text breaks a rule. */
function redactRequest(req: PublishRequest): { req: PublishRequest; redacted: number } | { refusal: Receipt } {
  if (req.pointer_text === null) return { req, redacted: 0 };
  const r = redactDefault(req.pointer_text);
  if (r.count === 0) return { req, redacted: 0 };
  const p = textProblem(r.text);
  if (p) return { refusal: requestRefusal({ detail: 'INVALID_FIELD:pointer_text', field: 'pointer_text', message: `pointer_text ${p} once its secrets are redacted` }) };
  return { req: { ...req, pointer_text: r.text }, redacted: r.count };
}

/** Runs the CAS for a valid request and returns its receipt (never throws for a refusal). */
export function publish(store: FsStore, sent: PublishRequest, opts: PublishOptions): Receipt {
  const clean = redactRequest(sent);
  if ('refusal' in clean) return clean.refusal;
  const req = clean.req;
  const id = req.session_id;
  const dir = store.dir(id);
  const now = opts.now ?? store.clock();
  const random = opts.randomBytes ?? systemRandom;
  const failed = (e: unknown): Receipt => {
    const pe = pointerError(e);
    return { ok: false, error: pe.code, message: pe.message, cause: pe.cause };
  };
  try {
    if (!store.exists(id)) {
      // Decide before creating anything: a refused request leaves no trace.
      const cur = readState(dir, id);
      const cas = compareCas(cur, req.expected_generation, req.expected_revision);
      if (!cas.ok) return stale(cur, cas.code);
      store.ensure(id, { title: `pointer ${id.slice(0, 8)}`, workspace: describeWorkspace(opts.cwd ?? process.cwd()), writer: opts.writer, createdBy: 'cli' });
    }
  } catch (e) {
    return failed(e);
  }
  let result: { commit: Commit } | { stale: Receipt };
  try {
    result = store.locked(id, () => {
      const cur = readState(dir, id);
      const cas = compareCas(cur, req.expected_generation, req.expected_revision);
      if (!cas.ok) return { stale: stale(cur, cas.code) };
      const next = nextState(cur, { status: req.target_status, task_id: req.task_id, pointer_text: req.pointer_text }, now, () => newGeneration(random));
      return { commit: commitUnderMutex(store, cur, next, opts.writer, 'publish', now) };
    });
  } catch (e) {
    return failed(e);
  }
  if ('stale' in result) return result.stale;
  const c = result.commit;
  store.afterAppend(id, c.events);
  return {
    ok: true,
    session_id: id,
    generation: c.state.generation,
    revision: c.state.revision,
    status: c.state.status,
    journal_appended: c.journal_appended,
    journal_error: c.journal_error,
    ...(clean.redacted > 0 ? { redacted: clean.redacted } : {}),
  };
}

/** Parses and publishes: the whole of `baton pointer publish` below the CLI. */
export function publishRaw(store: FsStore, raw: Uint8Array, opts: PublishOptions): Receipt {
  const parsed = parseRequest(raw);
  if (!parsed.ok) return requestRefusal(parsed.problem);
  return publish(store, parsed.request, opts);
}
