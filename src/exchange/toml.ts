// World Session's on-disk layout (seed 003, `world-session-v1`) as an exchange format:
// `.agents/world.state/{index.toml, sessions/<id>/{manifest.toml, events.toml, context.md,
// artifacts/}}`, events as `[[event]]` tables. Pure: strings in, strings out (smol-toml).
// A payload TOML cannot hold as it is (a null, a non-finite number) goes as `payload_json`, a
// JSON string, so a round trip keeps every payload exactly. The reader refuses what the seed
// forbids: a seq gap or a seq out of order is a corrupt log (WS201).
import { parse, stringify } from 'smol-toml';
import { fail } from '../core/errors.ts';
import type { StoredEvent } from '../core/events.ts';
import { checkImportedEvent, refuse } from './format.ts';

export const WORLD_ROOT = '.agents/world.state';
export const SCHEMA_VERSION = 'world-session-v1';

export const sessionPath = (id: string, file: string): string => `${WORLD_ROOT}/sessions/${id}/${file}`;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether TOML holds this value exactly (no null, every number finite and safe). */
function tomlExact(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) && (!Number.isInteger(v) || Number.isSafeInteger(v));
  if (typeof v === 'string') return !LONE_SURROGATE.test(v);
  if (typeof v === 'boolean') return true;
  if (Array.isArray(v)) return v.every(tomlExact);
  if (typeof v === 'object') return Object.values(v as object).every(tomlExact);
  return false;
}

type EventRow = Pick<StoredEvent, 'seq' | 'ts' | 'surface' | 'actor' | 'type' | 'payload'>;

/** One `[[event]]` table (with its `[event.payload]`), ending in a blank line. */
export function eventToml(ev: EventRow): string {
  const head = { seq: ev.seq, ts: ev.ts, surface: ev.surface, actor: ev.actor, type: ev.type };
  const row = tomlExact(ev.payload) ? { ...head, payload: ev.payload } : { ...head, payload_json: JSON.stringify(ev.payload) };
  return `${stringify({ event: [row] }).trim()}\n\n`;
}

function dateString(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}

/** Dates TOML parsed from unquoted datetimes become strings, as JSON would have them. */
function plain(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = plain(x);
    return o;
  }
  return v;
}

/**
 * Reads events.toml: every `[[event]]`, checked, in seq order 1, 2, 3, ... — a gap or an
 * event out of order is WS201 (the seed: order violated = corrupt), naming the seq.
 */
export function parseEventsToml(text: string, where: string): Omit<StoredEvent, 'h'>[] {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    return refuse(`${where} is not valid TOML: ${(e as Error).message.split('\n')[0]}`, { entry: where, rule: 'not an export' });
  }
  const rows = doc.event;
  if (!Array.isArray(rows) || rows.length === 0) refuse(`${where} holds no [[event]] tables`, { entry: where, rule: 'not an export' });
  const out: Omit<StoredEvent, 'h'>[] = [];
  for (let i = 0; i < (rows as unknown[]).length; i++) {
    const r = { ...((rows as Record<string, unknown>[])[i] ?? {}) };
    r.ts = dateString(r.ts);
    if (typeof r.payload_json === 'string' && r.payload === undefined) {
      try {
        r.payload = JSON.parse(r.payload_json);
      } catch {
        refuse(`${where}: event ${i + 1} has a payload_json that is not JSON`, { entry: where });
      }
      delete r.payload_json;
    } else if (r.payload === undefined) r.payload = {};
    else r.payload = plain(r.payload);
    const ev = checkImportedEvent(r, `${where} event ${i + 1}`);
    const expected = i + 1;
    if (ev.seq !== expected) {
      const prev = out.length ? out[out.length - 1].seq : 0;
      const why = ev.seq <= prev ? `seq ${ev.seq} after seq ${prev}: events out of order` : `seq ${ev.seq} where ${expected} was expected: a gap in the sequence`;
      fail('WS201', `${where} is corrupt: ${why} (World Session: seq is the only order and has no gaps)`, { entry: where, seq: ev.seq, expected_seq: expected });
    }
    out.push(ev);
  }
  return out;
}

export interface WorldManifest {
  id: string;
  title: string;
  created_by: string;
  created_at: string;
  task_id: string | null;
  parent_session: string | null;
  allowed_runtimes: string[];
  state: string;
  last_event_seq: number;
  last_writer: string;
  last_touched_at: string;
}

/** manifest.toml in the seed's shape (TOML has no null: absent fields are left out). */
export function manifestToml(m: WorldManifest): string {
  const task: Record<string, string> = {};
  if (m.task_id) task.task_id = m.task_id;
  if (m.parent_session) task.parent_session = m.parent_session;
  const session: Record<string, unknown> = {
    id: m.id,
    title: m.title,
    created_by: m.created_by,
    created_at: m.created_at,
    schema_version: SCHEMA_VERSION,
  };
  if (Object.keys(task).length) session.task = task;
  session.allowed_runtimes = { runtimes: m.allowed_runtimes };
  session.status = { state: m.state, last_event_seq: m.last_event_seq, last_writer: m.last_writer, last_touched_at: m.last_touched_at };
  return `${stringify({ session })}\n`;
}

export interface WorldSessionInfo {
  id: string | null;
  title: string | null;
}

/** The id and title manifest.toml gives, or nulls when it is absent or says nothing. */
export function readManifestToml(text: string | null, where: string): WorldSessionInfo {
  if (text === null) return { id: null, title: null };
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    return refuse(`${where} is not valid TOML: ${(e as Error).message.split('\n')[0]}`, { entry: where, rule: 'not an export' });
  }
  const s = (doc.session ?? {}) as Record<string, unknown>;
  return { id: typeof s.id === 'string' ? s.id : null, title: typeof s.title === 'string' ? s.title : null };
}

export function indexToml(sessions: { id: string; title: string; state: string; last_event_seq: number }[]): string {
  return `${stringify({ schema_version: SCHEMA_VERSION, session: sessions.map((s) => ({ ...s, path: `sessions/${s.id}` })) })}\n`;
}
