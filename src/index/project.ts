// The projection of one session's log into what the index holds: a row for listing and
// text rows for search. Pure: events in, a row and text operations out; the same fold
// serves the SQLite index, its catch-up on a log's new tail, and the plain-scan fallback,
// so all three list the same thing. Field rules follow core/session.ts foldEvent.
import type { StoredEvent } from '../core/events.ts';
import { redactValue, userPattern } from '../core/redact.ts';
import { happenedAt, touchedAfter } from '../core/time.ts';

export interface OpenEpisode {
  episode: string;
  provider: string;
  opened_at: string;
}

export interface CorruptMark {
  line: number;
  offset: number;
  reason: string;
}

export interface SessionRow {
  id: string;
  title: string;
  title_seq: number;
  cwd: string | null;
  git_root: string | null;
  created_at: string;
  last_touched_at: string;
  events: number;
  last_seq: number;
  last_h: string;
  archived: boolean;
  lease_until: string | null;
  pointer_status: string | null;
  open_episodes: OpenEpisode[];
  /** seq -> `session redact` patterns to apply when presenting that event's text. */
  redactions: Record<string, string[]>;
  corrupt: CorruptMark | null;
  /** Bytes of the log projected: complete, valid lines only. */
  log_offset: number;
  /** Where the last projected line starts (its h is last_h). */
  line_start: number;
}

/** What to do to the search table: index an event's text, or re-redact earlier rows. */
export type TextOp =
  | { kind: 'text'; seq: number; type: string; text: string; off: number }
  | { kind: 'redact'; seqs: number[]; pattern: string }
  | PointerOp;

/** A pointer event: the pointer's text (state.json, not the log) is indexed again (pointer-text.ts). */
export type PointerOp = { kind: 'pointer'; seq: number; off: number; digest: string };

export function emptyRow(id: string): SessionRow {
  return {
    id,
    title: '',
    title_seq: 0,
    cwd: null,
    git_root: null,
    created_at: '',
    last_touched_at: '',
    events: 0,
    last_seq: 0,
    last_h: '',
    archived: false,
    lease_until: null,
    pointer_status: null,
    open_episodes: [],
    redactions: {},
    corrupt: null,
    log_offset: 0,
    line_start: 0,
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Applies a `session redact` pattern the way every presentation does (core/session.ts presentText). */
export function applyRedaction(text: string, pattern: string): string {
  try {
    return redactValue(text, [userPattern(pattern)]);
  } catch {
    return text; // an invalid pattern was refused at write time; nothing to apply
  }
}

/** The searchable text of an event: context entries, prompts, titles, artifact names. */
/** The shell command in a tool call's input (`command`, Codex's `cmd`; a list of words joined), else ''. */
function commandOf(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const c = (input as Record<string, unknown>).command ?? (input as Record<string, unknown>).cmd;
  if (typeof c === 'string') return c;
  return Array.isArray(c) ? c.filter((w) => typeof w === 'string').join(' ') : '';
}

export function eventText(ev: StoredEvent): string {
  const p = ev.payload ?? {};
  switch (ev.type) {
    case 'session.created':
    case 'session.imported':
    case 'session.updated':
    case 'session.titled':
      return str(p.title);
    case 'context.appended': {
      const tags = Array.isArray(p.tags) ? (p.tags as unknown[]).filter((t) => typeof t === 'string').join(' ') : '';
      return tags ? `${str(p.text)}\n${tags}` : str(p.text);
    }
    case 'context.rewritten':
      return str(p.summary);
    case 'prompt.submitted':
      return str(p.text);
    case 'artifact.added':
    case 'artifact.updated':
    case 'artifact.removed':
      return str(p.path);
    case 'runtime.error':
      return str(p.message);
    case 'transcript.item': {
      // The visible text, then the tool's name, the shell command a tool call ran and the files
      // it named: searchable ("what was run"), and `baton files` finds them.
      const t = p.tool && typeof p.tool === 'object' ? (p.tool as Record<string, unknown>) : null;
      const files = Array.isArray(p.files) ? (p.files as unknown[]).filter((f) => typeof f === 'string').join(' ') : '';
      return [str(p.text), t ? str(t.name) : '', p.kind === 'tool_call' && t ? commandOf(t.input) : '', files].filter(Boolean).join('\n');
    }
    default:
      return ev.type.startsWith('x.') ? str(p.text) : '';
  }
}

/**
 * Folds one event (seq order, already checked contiguous) into the row; `text` receives
 * what the search table must do. `lineStart`/`lineEnd` are the event's bytes in the log.
 */
export function projectEvent(row: SessionRow, ev: StoredEvent, lineStart: number, lineEnd: number, text?: (op: TextOp) => void): void {
  const p = ev.payload ?? {};
  row.events++;
  row.last_seq = ev.seq;
  row.last_h = ev.h;
  row.last_touched_at = touchedAfter(row.last_touched_at, ev);
  row.line_start = lineStart;
  row.log_offset = lineEnd;
  switch (ev.type) {
    case 'session.imported':
    case 'session.created': {
      // An import's session.imported is its identity; the origin's session.created after it is history.
      if (row.created_at) break;
      row.title = str(p.title);
      row.title_seq = ev.seq;
      row.created_at = ev.ts;
      const ws = p.workspace as { cwd?: unknown; git_root?: unknown } | undefined;
      row.cwd = ws && typeof ws.cwd === 'string' ? ws.cwd : null;
      row.git_root = ws && typeof ws.git_root === 'string' ? ws.git_root : null;
      break;
    }
    case 'session.updated':
    case 'session.titled':
      if (typeof p.title === 'string') {
        row.title = p.title;
        row.title_seq = ev.seq;
      }
      break;
    case 'session.archived':
      row.archived = true;
      break;
    case 'context.rewritten':
      if (Array.isArray(p.redacts) && typeof p.pattern === 'string') {
        const seqs = (p.redacts as unknown[]).filter((s): s is number => typeof s === 'number' && Number.isInteger(s) && s > 0 && s < ev.seq);
        if (seqs.includes(row.title_seq)) row.title = applyRedaction(row.title, p.pattern);
        const red = { ...row.redactions };
        for (const s of seqs) red[s] = [...(red[s] ?? []), p.pattern];
        row.redactions = red;
        text?.({ kind: 'redact', seqs, pattern: p.pattern });
      }
      break;
    case 'lock.acquired':
    case 'lock.renewed':
      row.lease_until = typeof p.lease_until === 'string' ? p.lease_until : row.lease_until;
      break;
    case 'lock.released':
      row.lease_until = null;
      break;
    case 'pointer.published':
      row.pointer_status = typeof p.status === 'string' ? p.status : row.pointer_status;
      break;
    case 'pointer.cleared':
      row.pointer_status = 'CLEARED';
      break;
    case 'episode.opened':
      row.open_episodes = [...row.open_episodes, { episode: str(p.episode), provider: str(p.provider), opened_at: happenedAt(ev) }];
      break;
    case 'episode.closed':
      row.open_episodes = row.open_episodes.filter((e) => e.episode !== p.episode);
      break;
  }
  if (text && (ev.type === 'pointer.published' || ev.type === 'pointer.cleared')) {
    text({ kind: 'pointer', seq: ev.seq, off: lineStart, digest: typeof p.pointer_digest === 'string' ? p.pointer_digest.replace(/[,:]/g, '') : '' });
  }
  if (text) {
    const t = eventText(ev);
    if (t) text({ kind: 'text', seq: ev.seq, type: indexedType(ev), text: t, off: lineStart });
  }
}

/**
 * The type a search chunk records for an event: a transcript item's carries its agent, role and
 * kind (`transcript.item:claude:assistant:message`), so search drops the items a filter leaves
 * out in SQL and before reading any log (query.ts). No field holds a `,` or a `:`.
 */
export function indexedType(ev: StoredEvent): string {
  if (ev.type !== 'transcript.item') return ev.type;
  const p = ev.payload ?? {};
  const part = (v: unknown): string => (typeof v === 'string' ? v.replace(/[,:]/g, '') : '');
  return `transcript.item:${part(p.agent)}:${part(p.role)}:${part(p.kind)}`;
}

/** The event type of a chunk's recorded type (indexedType's suffix dropped). */
export const baseType = (t: string): string => {
  const i = t.indexOf(':');
  return i < 0 ? t : t.slice(0, i);
};

export type LifecycleState = 'active' | 'suspended' | 'archived';

/** An event's text as presentations show it: with the session's redact patterns for that seq. */
export function presentedText(text: string, patterns: string[] | undefined): string {
  let out = text;
  for (const p of patterns ?? []) out = applyRedaction(out, p);
  return out;
}

/** The lifecycle state at `nowMs` (store.md: derived from the log's lease, never stored apart). */
export function rowState(row: Pick<SessionRow, 'archived' | 'lease_until'>, nowMs: number): LifecycleState {
  if (row.archived) return 'archived';
  return row.lease_until !== null && Date.parse(row.lease_until) > nowMs ? 'active' : 'suspended';
}
