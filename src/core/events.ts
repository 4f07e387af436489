// The event line format of events.jsonl and its chain hash (store.md). Pure: no I/O.
// A line is `{"seq":..,"ts":..,"type":..,"surface":..,"actor":..,"payload":{..},"h":".."}\n`;
// h = first 32 hex of sha256(previous h + the line's bytes before `,"h":`), "" before seq 1.
import { fail } from './errors.ts';
import { sha256Hex } from './hash.ts';

export const MAX_LINE_BYTES = 1024 * 1024;

export type Actor = 'user' | 'agent' | 'system';
export const ACTORS: readonly Actor[] = ['user', 'agent', 'system'];

/** Kinds of surface; a hook's surface is `hook:<provider>`. */
export const SURFACE_KINDS = ['cli', 'hook', 'mcp', 'api', 'web', 'ide-skill'] as const;
export type SurfaceKind = (typeof SURFACE_KINDS)[number];
const SURFACE_RE = /^(cli|mcp|api|web|ide-skill|hook:[a-z][a-z0-9_-]{0,31})$/;

export function isSurface(s: string): boolean {
  return SURFACE_RE.test(s);
}

export function surfaceKind(surface: string): SurfaceKind {
  return (surface.startsWith('hook:') ? 'hook' : surface) as SurfaceKind;
}

export const RESERVED_TYPES = [
  'session.created', 'session.imported', 'session.updated', 'session.titled', 'session.resumed', 'session.suspended', 'session.archived',
  'context.appended', 'context.rewritten',
  'artifact.added', 'artifact.updated', 'artifact.removed',
  'lock.acquired', 'lock.renewed', 'lock.released',
  'runtime.error', 'runtime.skill_invoked', 'runtime.skill_completed',
  'episode.opened', 'episode.closed',
  'prompt.submitted',
  'pointer.published', 'pointer.cleared',
  'ref.captured',
  'transcript.item',
] as const;
export type ReservedType = (typeof RESERVED_TYPES)[number];
const RESERVED = new Set<string>(RESERVED_TYPES);
export const RESERVED_NAMESPACES = ['session', 'context', 'artifact', 'lock', 'runtime', 'episode', 'prompt', 'pointer', 'ref', 'transcript'];
const CUSTOM_RE = /^x\.[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$/;

export function checkEventType(type: string): void {
  if (RESERVED.has(type) || CUSTOM_RE.test(type)) return;
  fail('WS204', `event type ${JSON.stringify(type)} is not allowed: use a reserved type or a custom one starting with "x."`, {
    reserved_namespaces: RESERVED_NAMESPACES,
    rule: 'custom types must match x.<name>',
  });
}

/** Content writes need the writer lease; everything else is a lifecycle fact (store.md). */
export function needsLease(type: string): boolean {
  return type.startsWith('context.') || type.startsWith('artifact.') || type === 'session.updated' || type.startsWith('x.');
}

export interface EventInput {
  type: string;
  surface: string;
  actor: Actor;
  payload: Record<string, unknown>;
  /**
   * Every string of the payload is redacted already (a transcript item's boundItem redacts before
   * it bounds: the cut and its digest are of the redacted text), so the append does not scan it
   * again. Never written to the log.
   */
  preRedacted?: true;
}

export interface StoredEvent extends EventInput {
  seq: number;
  ts: string;
  h: string;
}

export function chainHash(prevH: string, bodyBeforeH: string): string {
  // The two hashed as one text, not joined first: the join is a copy of the line to flatten.
  return sha256Hex(prevH, bodyBeforeH).slice(0, 32);
}

/** Encodes one event line (with its trailing newline) chained to prevH. */
export function encodeEvent(seq: number, ts: string, e: EventInput, prevH: string): { line: string; h: string } {
  const body = JSON.stringify({ seq, ts, type: e.type, surface: e.surface, actor: e.actor, payload: e.payload });
  const before = body.slice(0, -1);
  const h = chainHash(prevH, before);
  return { line: `${before},"h":"${h}"}\n`, h };
}

export type LineCheck =
  | { ok: true; event: StoredEvent }
  | { ok: false; reason: string };

/** Why a line is not an event when it does not even parse: the only bad last line that is a torn write. */
export const NOT_JSON = 'not valid JSON';

/** Parses a line (without its newline) as the event numbered expectSeq; a string says why it is not. */
export function parseEventLine(line: string, expectSeq: number): StoredEvent | string {
  let ev: StoredEvent;
  try {
    ev = JSON.parse(line);
  } catch {
    return NOT_JSON;
  }
  if (!ev || typeof ev !== 'object' || Array.isArray(ev)) return 'not a JSON object';
  if (ev.seq !== expectSeq) return `seq ${ev.seq} where ${expectSeq} was expected`;
  return ev;
}

/** Parses a line (without its newline) and checks its seq and chain against what precedes it. */
export function checkLine(line: string, expectSeq: number, prevH: string): LineCheck {
  const ev = parseEventLine(line, expectSeq);
  if (typeof ev === 'string') return { ok: false, reason: ev };
  const cut = line.lastIndexOf(',"h":"');
  if (cut < 0 || typeof ev.h !== 'string') return { ok: false, reason: 'no chain hash' };
  if (chainHash(prevH, line.slice(0, cut)) !== ev.h) return { ok: false, reason: 'chain hash mismatch' };
  return { ok: true, event: ev };
}
