// `baton session list [--state S] [--cwd DIR | --all] [--limit N]` (index.md): answered by
// the SQLite index, caught up with the logs first; a plain scan when no index can be had.
import { resolve } from 'node:path';
import { fail } from '../core/errors.ts';
import { type IndexIo, type ListedSession, listSessions } from '../index/api.ts';
import { realDir } from '../store/workspace.ts';
import { parseCount } from './args.ts';
import { type CommandResult, type GlobalOptions, color, fitWidth, relativeTime, storeHome, table } from './output.ts';

export interface ListOptions {
  state?: string;
  cwd?: string;
  all?: boolean;
  limit?: string | number;
}

const STATES = ['active', 'suspended', 'archived'] as const;

/** Parses --limit: a whole number >= 1. */
export function parseLimit(v: string | number | undefined, flag = '--limit'): number | undefined {
  return v === undefined ? undefined : parseCount(v, flag, { min: 1 });
}

/** The workspace filter: --all (none), --cwd DIR, else the current directory; always a real path. */
export function workspaceFilter(opts: { cwd?: string; all?: boolean }): string | null {
  if (opts.all && opts.cwd !== undefined) fail('USAGE', '--all and --cwd cannot be used together');
  if (opts.all) return null;
  return realDir(resolve(opts.cwd ?? process.cwd()));
}

/** stderr notes of the index (moved aside, rebuilt, unavailable), unless --quiet; each also kept in `notes` for --json. */
export function indexIo(g: GlobalOptions, notes: string[] = []): IndexIo {
  const io: IndexIo = {
    note: (m) => {
      notes.push(m);
      if (!g.quiet) process.stderr.write(`baton: index: ${m}\n`);
    },
  };
  // process.stderr last: its getter builds the stream and loads net, stream and tty (~5 ms),
  // which a --json or --quiet run (a resume picker's) never needs.
  if (!g.quiet && !g.json && process.stderr.isTTY) io.progress = progressBar('indexing');
  return io;
}

/** A one-line progress bar on stderr (TTY only), cleared when done. */
export function progressBar(label: string): (done: number, total: number) => void {
  let last = -1;
  return (done, total) => {
    if (total < 50) return;
    const pct = Math.floor((done / total) * 100);
    if (pct === last) return;
    last = pct;
    const width = 30;
    const fill = Math.round((pct / 100) * width);
    process.stderr.write(`\r${label} [${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${pct}% ${done}/${total}`);
    if (done >= total) process.stderr.write('\r\x1b[2K');
  };
}

const shortHome = (p: string | null): string => {
  if (!p) return '-';
  const h = process.env.HOME;
  return h && (p === h || p.startsWith(`${h}/`)) ? `~${p.slice(h.length)}` : p;
};

function stateCell(s: ListedSession): string {
  if (s.corrupt) return color.red('corrupt');
  if (s.state === 'active') return color.green('active');
  return s.state === 'archived' ? color.dim('archived') : s.state;
}

export function listCommand(g: GlobalOptions, opts: ListOptions): CommandResult {
  if (opts.state !== undefined && !(STATES as readonly string[]).includes(opts.state)) {
    fail('USAGE', `--state must be one of ${STATES.join(', ')}, got ${JSON.stringify(opts.state)}`);
  }
  const limit = parseLimit(opts.limit);
  const cwd = workspaceFilter(opts);
  const home = storeHome(g);
  const notes: string[] = [];
  const { sessions, source } = listSessions(home, { cwd, state: opts.state as ListedSession['state'] | undefined, limit }, indexIo(g, notes));
  const json = { ok: true as const, sessions, source, ...(notes.length ? { notes } : {}) };
  // --json prints the document only: the table (and the colour check behind it, which builds
  // process.stdout and loads net and tty) is not made.
  if (g.json) return { json };
  const now = Date.now();
  const text: string[] = [];
  if (!sessions.length) {
    text.push(cwd === null ? 'no sessions' : `no sessions in ${shortHome(cwd)} (--all lists every workspace)`);
  } else {
    const rows = sessions.map((s) => [
      s.id,
      stateCell(s),
      fitWidth(s.title, 40),
      shortHome(s.workspace),
      relativeTime(s.last_touched_at, now),
      String(s.events),
      s.pointer_status ?? '-',
      s.open_episode ? `${s.open_episode.provider || '?'} ${relativeTime(s.open_episode.opened_at, now)}` : '-',
    ]);
    // On a narrow terminal the title, then the workspace, then the id are cut with `…`.
    text.push(...table(rows, ['ID', 'STATE', 'TITLE', 'WORKSPACE', 'TOUCHED', 'EVENTS', 'POINTER', 'EPISODE'], { shrink: [2, 3, 0] }));
    const corrupt = sessions.filter((s) => s.corrupt);
    for (const s of corrupt) text.push(color.red(`${s.id}: log corrupt at line ${s.corrupt?.line} (${s.corrupt?.reason}): run baton session verify ${s.id}`));
    const conflicted = sessions.filter((s) => s.conflict);
    for (const s of conflicted) text.push(color.yellow(`${s.id}: projection_conflict ${s.conflict?.detected_at}: re-projected from the log (baton doctor)`));
  }
  // source: 'scan' when no index could be had; notes say why (and any repair of the index).
  return { json, text };
}

/** For `session show`: the session's last projection_conflict as one line, or null (never throws). */
export { indexConflictFor } from '../index/api.ts';

/** `session resume --last`: the newest session of this directory (last touched) that is not archived; WS001 when there is none. */
export function newestSessionHere(g: GlobalOptions): string {
  const cwd = workspaceFilter({});
  const { sessions } = listSessions(storeHome(g), { cwd }, indexIo(g));
  const s = sessions.filter((x) => x.state !== 'archived').sort((a, b) => b.last_touched_at.localeCompare(a.last_touched_at))[0];
  if (!s) fail('WS001', `no session of ${cwd} to resume: start one with baton session new TITLE (baton session list --all lists every workspace)`, { cwd, command: 'baton session new TITLE' });
  return s.id;
}
