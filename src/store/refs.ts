// Storage of refs with their target session (refs.md).
// Source of truth: `<target>/refs/<source>.json`, one file per source session holding the
// latest capture from that source (a re-capture replaces it), written atomically and
// durably; the target's log records every capture as `ref.captured` (all fields but the
// body, plus the target). Who writes: captureRef only, under the target's session mutex,
// the event first and the file second. What a crash leaves: at worst an acknowledged
// `ref.captured` whose file still holds the previous capture (or none); re-capturing fixes it.
// The file carries the seq of its event, so the two can always be matched.
// The read side (renderRefsForContext, contextRefs) runs on the hook path (SessionStart, and
// every prompt's "said once" check): it reads the refs folder and the tail of each source's
// log, nothing else.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { fail } from '../core/errors.ts';
import type { StoredEvent } from '../core/events.ts';
import { redactText } from '../core/redact.ts';
import { type Bounds, type Ref, type RefState, capture, checkBound, checkExpiry, render, renderOmitted, state } from '../core/refs.ts';
import { ensureDir, writeFileAtomic } from './fsutil.ts';
import { LOG_FILE, scanLog } from './log.ts';
import { contextMdSeq, pointerSummary, renderContextMd } from './projections.ts';
import type { FsStore, Writer } from './store.ts';

export const REFS_DIR = 'refs';
export const REF_SCHEMA = 'baton-ref-1';
export const DEFAULT_TTL = '24h';
/** Refusal (exit 2): a session citing itself would be stale the moment it is captured. */
export const REF_SELF = 'REF_SELF';
/** Refusal (exit 2): `ref render --digest D` matched no ref of the session. */
export const REF_NOT_FOUND = 'REF_NOT_FOUND';

/** A ref as stored with its target. */
export interface StoredRef extends Ref {
  schema: typeof REF_SCHEMA;
  target: string;
  /** seq of the `ref.captured` event in the target's log. */
  seq: number;
  max_bytes: number;
  max_lines: number;
}

/** A stored ref with what it is now. */
export interface RefNow {
  ref: StoredRef;
  current_version: number;
  state: RefState;
}

function refsDir(store: FsStore, sessionId: string): string {
  return join(store.dir(sessionId), REFS_DIR);
}

function isStoredRef(x: unknown): x is StoredRef {
  const r = x as StoredRef;
  return (
    !!r &&
    typeof r === 'object' &&
    r.schema === REF_SCHEMA &&
    typeof r.source === 'string' &&
    typeof r.body === 'string' &&
    typeof r.digest === 'string' &&
    typeof r.expires_at === 'string' &&
    typeof r.captured_at === 'string' &&
    Number.isSafeInteger(r.source_version) &&
    Number.isSafeInteger(r.seq) &&
    Number.isSafeInteger(r.original_bytes) &&
    typeof r.truncated === 'boolean'
  );
}

/** The target's refs, newest capture first. Unreadable files are skipped (the hook path never throws on them). */
export function readRefs(store: FsStore, sessionId: string): StoredRef[] {
  const dir = refsDir(store, sessionId);
  let names: string[];
  try {
    // Most sessions have no refs: an lstat that says so costs the hook less than a readdir's ENOENT error.
    if (!fs.lstatSync(dir, { throwIfNoEntry: false })) return [];
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: StoredRef[] = [];
  for (const n of names) {
    if (n.startsWith('.') || !n.endsWith('.json')) continue;
    try {
      const r = JSON.parse(fs.readFileSync(join(dir, n), 'utf8'));
      if (isStoredRef(r)) out.push(r);
    } catch {}
  }
  return out.sort((a, b) => b.seq - a.seq || (a.source < b.source ? -1 : 1));
}

const TAIL_WINDOW = 64 * 1024;
const TAIL_LIMIT = 4 * 1024 * 1024;

/**
 * A session's current version, read cheaply: the seq of the last complete line of its log
 * (a torn tail is not acknowledged, so it does not count), 0 when the session does not exist
 * (a deleted source reads as replaced: stale). Reads the log's tail only.
 */
export function currentVersion(store: FsStore, sessionId: string): number {
  const path = join(store.dir(sessionId), LOG_FILE);
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch {
    return 0;
  }
  try {
    const size = fs.fstatSync(fd).size;
    let window = Math.min(size, TAIL_WINDOW);
    while (window > 0) {
      const start = size - window;
      const chunk = Buffer.allocUnsafe(window);
      const buf = chunk.subarray(0, fs.readSync(fd, chunk, 0, window, start));
      let end = buf.length > 0 ? buf.lastIndexOf(10) : -1;
      while (end >= 0) {
        const prev = end === 0 ? -1 : buf.lastIndexOf(10, end - 1);
        if (prev < 0 && start > 0) break; // this line starts before the window
        try {
          const ev = JSON.parse(buf.toString('utf8', prev + 1, end));
          if (ev && Number.isSafeInteger(ev.seq) && ev.seq > 0) return ev.seq;
        } catch {}
        end = prev;
      }
      if (start === 0) return 0;
      if (window >= TAIL_LIMIT) return scanLog(path).lastSeq;
      window = Math.min(size, window * 8);
    }
    return 0;
  } finally {
    fs.closeSync(fd);
  }
}

export function refsNow(store: FsStore, sessionId: string, now: Date): RefNow[] {
  const versions = new Map<string, number>();
  return readRefs(store, sessionId).map((ref) => {
    let v = versions.get(ref.source);
    if (v === undefined) versions.set(ref.source, (v = currentVersion(store, ref.source)));
    return { ref, current_version: v, state: state(ref, now, v) };
  });
}

/**
 * Renders the target session's refs for a SessionStart context: each with its current state,
 * newest capture first, the whole within budgetBytes (UTF-8, newline-terminated blocks). A ref
 * that does not fit is listed by source and digest with omitted="size"; when even those lines
 * do not fit, the ones that do are kept. Never throws: a hook must not break the agent.
 */
export function renderRefsForContext(store: FsStore, sessionId: string, budgetBytes: number, now: Date): string {
  return contextRefs(store, sessionId, now).render(budgetBytes);
}

/**
 * The session's refs for one hook context, read at most once: `render` as renderRefsForContext,
 * `shown` what a context shows of them — `source digest state` per ref, one a line, newest
 * capture first ('' without refs) — which the pointer's "said once" memory compares; `now` the
 * refs with their state (the handoff block lists them). Never throws.
 */
export function contextRefs(store: FsStore, sessionId: string, now: Date): { render: (budgetBytes: number) => string; shown: () => string; now: () => RefNow[] } {
  let read: RefNow[] | undefined;
  const refs = (): RefNow[] => {
    if (read === undefined) {
      try {
        read = refsNow(store, sessionId, now);
      } catch {
        read = [];
      }
    }
    return read;
  };
  return {
    now: refs,
    shown: () => refs().map((r) => `${r.ref.source} ${r.ref.digest} ${r.state}`).join('\n'),
    render: (budgetBytes) => {
      try {
        const items = refs().map((r) => {
          const full = `${render(r.ref, now, r.current_version)}\n`;
          const omitted = `${renderOmitted(r.ref, now, r.current_version)}\n`;
          return { full, omitted, fullBytes: Buffer.byteLength(full), omittedBytes: Buffer.byteLength(omitted), include: false };
        });
        return fitToBudget(items, Math.max(0, Math.floor(budgetBytes) || 0));
      } catch {
        return '';
      }
    },
  };
}

interface Fit {
  full: string;
  omitted: string;
  fullBytes: number;
  omittedBytes: number;
  include: boolean;
}

/**
 * Greedy in priority order: a ref is rendered in full when it fits together with the
 * omitted-lines of every ref not rendered; when even the omitted-lines do not all fit,
 * as many as fit are kept, in order.
 */
export function fitToBudget(items: Fit[], budget: number): string {
  let full = 0;
  let omitted = items.reduce((n, x) => n + x.omittedBytes, 0);
  for (const x of items) {
    if (full + x.fullBytes + omitted - x.omittedBytes <= budget) {
      x.include = true;
      full += x.fullBytes;
      omitted -= x.omittedBytes;
    }
  }
  let out = items.filter((x) => x.include).map((x) => x.full).join('');
  let room = budget - full;
  for (const x of items) {
    if (x.include || x.omittedBytes > room) continue;
    out += x.omitted;
    room -= x.omittedBytes;
  }
  return out;
}

export interface CaptureRequest {
  from: string;
  into: string;
  ttlMs: number;
  bounds: Bounds;
  /** An explicit body (--body-file); else the source's pointer text, else its context.md. */
  body?: string | null;
  writer: Writer;
}

export interface CaptureResult {
  ref: StoredRef;
  event: StoredEvent;
}

/** The default body: the source's pointer text if it has one, else its context.md as of the log. Writes nothing. */
export function defaultBody(store: FsStore, sourceId: string, lastSeq: number): { body: string; from: 'pointer' | 'context.md' } {
  const dir = store.dir(sourceId);
  const pointer = pointerSummary(dir);
  if (pointer?.text) return { body: pointer.text, from: 'pointer' };
  const seq = contextMdSeq(dir);
  if (seq !== null && seq >= lastSeq) {
    try {
      return { body: fs.readFileSync(join(dir, 'context.md'), 'utf8'), from: 'context.md' };
    } catch {}
  }
  // Missing or behind: render it from the log in memory (a capture that is then refused must change nothing).
  const { view } = store.view(sourceId);
  return { body: renderContextMd(view, store.lifecycle(sourceId, view.archived), pointer), from: 'context.md' };
}

/**
 * Captures a ref from one session into another: refusals first (bounds, expiry, empty
 * source, WS001 for a missing session, self-reference), then the source's version (its last
 * seq, read before the body so a racing append can only make the ref look staler, never
 * fresher), then `ref.captured` in the target's log and the ref file, under the target's mutex.
 */
export function captureRef(store: FsStore, req: CaptureRequest): CaptureResult {
  if (typeof req.from !== 'string' || req.from.trim() === '') fail('REF_EMPTY_SOURCE', 'a ref needs a source session: --from is empty');
  checkBound('max_bytes', req.bounds.maxBytes);
  checkBound('max_lines', req.bounds.maxLines);
  const at = store.clock();
  const expires = new Date(at.getTime() + req.ttlMs);
  checkExpiry(at, expires);
  const source = store.resolve(req.from);
  const target = store.resolve(req.into);
  if (source === target) fail(REF_SELF, `session ${source} cannot cite itself: the capture would make it stale at once`, { session: source });

  const scan = scanLog(join(store.dir(source), LOG_FILE));
  if (scan.corrupt) {
    fail('WS201', `events log of ${source} is corrupt at line ${scan.corrupt.line} (${scan.corrupt.reason}); run baton session verify ${source}`, {
      session: source,
      line: scan.corrupt.line,
      reason: scan.corrupt.reason,
    });
  }
  const version = scan.lastSeq;
  const rawBody = req.body ?? defaultBody(store, source, version).body;
  // The store redacts secrets before anything is written; a ref body is no exception.
  const ref = capture(source, version, at, expires, redactText(rawBody), req.bounds);

  const payload = {
    source: ref.source,
    source_version: ref.source_version,
    captured_at: ref.captured_at,
    expires_at: ref.expires_at,
    truncated: ref.truncated,
    original_bytes: ref.original_bytes,
    digest: ref.digest,
    target,
  };
  const { stored, events } = store.locked(target, () => {
    const events = store.appendUnderMutex(target, [{ type: 'ref.captured', surface: req.writer.surface, actor: req.writer.actor, payload }], req.writer);
    const stored: StoredRef = { schema: REF_SCHEMA, ...ref, target, seq: events[0].seq, max_bytes: req.bounds.maxBytes, max_lines: req.bounds.maxLines };
    const dir = refsDir(store, target);
    ensureDir(dir);
    writeFileAtomic(join(dir, `${source}.json`), `${JSON.stringify(stored, null, 2)}\n`, { durable: true });
    return { stored, events };
  });
  store.afterAppend(target, events);
  return { ref: stored, event: events[0] };
}
