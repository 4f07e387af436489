// `session list` by scanning every session's manifest: the fallback when no index can be had.
import { fail } from '../core/errors.ts';
import { pointerSummary, readManifest } from '../store/projections.ts';
import { realDir } from '../store/workspace.ts';
import { type CommandResult, type GlobalOptions, openStore, relativeTime, table } from './output.ts';

export interface ListOptions {
  state?: string;
  cwd?: string;
  all?: boolean;
  limit?: string;
}

export interface ListRow {
  id: string;
  state: string;
  title: string;
  workspace: string | null;
  last_touched_at: string;
  events: number;
  pointer_status: string | null;
  open_episode: string | null;
  corrupt: boolean;
}

export function listOptions(o: ListOptions): { state?: string; cwd: string | null; limit: number } {
  if (o.state && !['active', 'suspended', 'archived'].includes(o.state)) fail('USAGE', '--state is active, suspended or archived');
  if (o.all && o.cwd) fail('USAGE', 'give --cwd or --all, not both');
  const limit = o.limit !== undefined ? Number(o.limit) : Number.POSITIVE_INFINITY;
  if (o.limit !== undefined && (!Number.isInteger(limit) || limit < 1)) fail('USAGE', '--limit takes a positive number');
  return { state: o.state, cwd: o.all ? null : realDir(o.cwd ?? process.cwd()), limit };
}

export function formatList(rows: ListRow[], note?: string): CommandResult {
  const text = rows.length
    ? table(
        rows.map((r) => [r.id, r.corrupt ? 'CORRUPT' : r.state, r.title, r.workspace ?? '-', relativeTime(r.last_touched_at), String(r.events), r.pointer_status ?? '-', r.open_episode ?? '-']),
        ['ID', 'STATE', 'TITLE', 'WORKSPACE', 'TOUCHED', 'EVENTS', 'POINTER', 'EPISODE'],
      )
    : ['no sessions'];
  return { json: { ok: true, sessions: rows, ...(note ? { note } : {}) }, text };
}

export function scanListCommand(g: GlobalOptions, o: ListOptions): CommandResult {
  const opts = listOptions(o);
  const store = openStore(g);
  const rows: ListRow[] = [];
  for (const id of store.ids()) {
    const dir = store.dir(id);
    let m = readManifest(dir);
    let corrupt = false;
    let openEpisode: string | null = null;
    const { view, scan } = store.view(id);
    corrupt = !!scan.corrupt;
    if (!m || m.status.last_event_seq !== view.last_seq) {
      try {
        m = corrupt ? null : store.refreshProjections(id);
      } catch {}
    }
    openEpisode = view.open_episodes[0]?.episode ?? null;
    const state = store.lifecycle(id, view.archived);
    const ws = view.workspace?.cwd ?? null;
    if (opts.cwd && ws !== opts.cwd) continue;
    if (opts.state && opts.state !== state) continue;
    rows.push({
      id,
      state,
      title: view.title,
      workspace: ws,
      last_touched_at: view.last_touched_at,
      events: view.events,
      pointer_status: pointerSummary(dir)?.status ?? null,
      open_episode: openEpisode,
      corrupt,
    });
    void m;
  }
  rows.sort((a, b) => (a.last_touched_at < b.last_touched_at ? 1 : a.last_touched_at > b.last_touched_at ? -1 : a.id.localeCompare(b.id)));
  return formatList(rows.slice(0, opts.limit));
}
