// What a session is, folded from its events: the one reading of the log that projections,
// `show`, `list` and the index share. Pure: events in, a view out.
import type { StoredEvent } from './events.ts';
import { happenedAt, touchedAfter } from './time.ts';
import { redactValue, userPattern } from './redact.ts';

export interface Workspace {
  cwd: string;
  git_root?: string;
  git_branch?: string;
}

export interface EpisodeView {
  episode: string;
  provider: string;
  provider_session_id: string;
  source: string;
  opened_seq: number;
  opened_at: string;
  context_file?: string;
  prompts: number;
}

export interface SessionView {
  id: string;
  title: string;
  task_id: string | null;
  parent_session: string | null;
  allowed_runtimes: string[];
  workspace: Workspace | null;
  created_by: string;
  created_at: string;
  archived: boolean;
  last_seq: number;
  last_writer: string;
  last_touched_at: string;
  events: number;
  context: { seq: number; ts: string; text: string; tags: string[] }[];
  artifacts: Map<string, { sha256: string; seq: number }>;
  refs: { seq: number; source: string; source_version: number; digest: string; expires_at: string }[];
  open_episodes: EpisodeView[];
  episodes_total: number;
  /** seq -> user patterns to apply when presenting that event (session redact). */
  redactions: Map<number, string[]>;
  retrospective?: string;
}

export function emptyView(id: string): SessionView {
  return {
    id,
    title: '',
    task_id: null,
    parent_session: null,
    allowed_runtimes: [],
    workspace: null,
    created_by: '',
    created_at: '',
    archived: false,
    last_seq: 0,
    last_writer: '',
    last_touched_at: '',
    events: 0,
    context: [],
    artifacts: new Map(),
    refs: [],
    open_episodes: [],
    episodes_total: 0,
    redactions: new Map(),
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Folds one event into the view (events must come in seq order). */
export function foldEvent(v: SessionView, ev: StoredEvent): void {
  const p = ev.payload ?? {};
  v.last_seq = ev.seq;
  v.events++;
  v.last_touched_at = touchedAfter(v.last_touched_at, ev);
  v.last_writer = ev.surface;
  switch (ev.type) {
    case 'session.imported':
    case 'session.created':
      // An import's session.imported is its identity; the origin's session.created after it is history.
      if (v.created_at) break;
      v.title = str(p.title);
      v.task_id = (p.task_id as string) ?? null;
      v.parent_session = (p.parent_session as string) ?? null;
      v.allowed_runtimes = Array.isArray(p.allowed_runtimes) ? (p.allowed_runtimes as string[]) : [];
      v.workspace = (p.workspace as Workspace) ?? null;
      v.created_by = str(p.created_by) || ev.surface;
      v.created_at = ev.ts;
      break;
    case 'session.titled':
      v.title = str(p.title);
      break;
    case 'session.updated':
      if (typeof p.title === 'string') v.title = p.title;
      if ('task_id' in p) v.task_id = (p.task_id as string) ?? null;
      if (Array.isArray(p.allowed_runtimes)) v.allowed_runtimes = p.allowed_runtimes as string[];
      break;
    case 'session.archived':
      v.archived = true;
      v.retrospective = str(p.retrospective);
      break;
    case 'context.appended':
      v.context.push({ seq: ev.seq, ts: ev.ts, text: str(p.text), tags: Array.isArray(p.tags) ? (p.tags as string[]) : [] });
      if (v.context.length > 200) v.context.shift();
      break;
    case 'context.rewritten':
      if (Array.isArray(p.redacts) && typeof p.pattern === 'string') {
        for (const s of p.redacts as number[]) {
          const list = v.redactions.get(s) ?? [];
          list.push(p.pattern);
          v.redactions.set(s, list);
        }
      }
      break;
    case 'artifact.added':
      v.artifacts.set(str(p.path), { sha256: str(p.sha256), seq: ev.seq });
      break;
    case 'artifact.updated':
      v.artifacts.set(str(p.path), { sha256: str(p.sha256_new), seq: ev.seq });
      break;
    case 'artifact.removed':
      v.artifacts.delete(str(p.path));
      break;
    case 'ref.captured':
      v.refs.push({
        seq: ev.seq,
        source: str(p.source),
        source_version: Number(p.source_version) || 0,
        digest: str(p.digest),
        expires_at: str(p.expires_at),
      });
      break;
    case 'episode.opened':
      v.episodes_total++;
      v.open_episodes.push({
        episode: str(p.episode),
        provider: str(p.provider),
        provider_session_id: str(p.provider_session_id),
        source: str(p.source),
        opened_seq: ev.seq,
        opened_at: happenedAt(ev),
        context_file: typeof p.context_file === 'string' ? p.context_file : undefined,
        prompts: 0,
      });
      break;
    case 'episode.closed':
      v.open_episodes = v.open_episodes.filter((e) => e.episode !== p.episode);
      break;
    case 'prompt.submitted': {
      const e = v.open_episodes.find((x) => x.episode === p.episode);
      if (e) e.prompts++;
      break;
    }
  }
}

/** The event as every presentation shows it: with `session redact` patterns applied. */
export function presentEvent(ev: StoredEvent, redactions: Map<number, string[]>): StoredEvent {
  const pats = redactions.get(ev.seq);
  if (!pats) return ev;
  return { ...ev, payload: redactValue(ev.payload, pats.map(userPattern)) };
}

export function presentText(seq: number, text: string, redactions: Map<number, string[]>): string {
  const pats = redactions.get(seq);
  return pats ? redactValue(text, pats.map(userPattern)) : text;
}
