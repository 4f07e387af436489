// `baton history scan|import` (transcripts.md, "History import"; docs/history.md): the wiring
// only. The importer is src/transcripts/history.ts; this file checks the flags before any file
// is touched (an unknown agent, a bad date: USAGE, nothing changed), opens the agents'
// databases on a private copy (history-db.ts), draws the progress line and the summary.
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import { isoMillis } from '../core/time.ts';
import { TRANSCRIPT_AGENTS, type TranscriptAgent } from '../core/transcript.ts';
import { type AgentImportStats, importHistory, scanHistory } from '../transcripts/history.ts';
import { READER_AGENTS } from '../transcripts/index.ts';
import { openDatabaseCopy } from './history-db.ts';
import { resolveHome } from '../store/home.ts';
import { takeMutexByCreate } from '../store/mutex.ts';
import { FsStore } from '../store/store.ts';
import { type GlobalOptions, color, envelope, openStore, relativeTime, run, table } from './output.ts';
import { rateLine } from './progress.ts';
import { parseWhen } from './when.ts';

/** The agents named on the command line (none, or --all: every agent baton reads). */
export function parseAgents(names: string[], all: boolean): TranscriptAgent[] {
  if (all && names.length) fail('USAGE', 'give agents or --all, not both', { agents: names });
  if (!names.length) return [...READER_AGENTS] as TranscriptAgent[];
  const out: TranscriptAgent[] = [];
  for (const n of names) {
    if (!(READER_AGENTS as string[]).includes(n)) fail('USAGE', `unknown agent ${JSON.stringify(n)} (known: ${READER_AGENTS.join(', ')})`, { agent: n, known: READER_AGENTS });
    if (!out.includes(n as TranscriptAgent)) out.push(n as TranscriptAgent);
  }
  return out;
}

/** `--since`: a date (2026-11-01), a date and time (ISO 8601), or a duration back from now (7d). */
export function parseSince(value: string, now: Date): Date {
  return new Date(parseWhen(value, '--since', now.getTime()));
}

function projectFlag(dir: string): string {
  const abs = resolve(dir);
  try {
    return fs.realpathSync.native(abs);
  } catch {
    // A folder that no longer exists still names the sessions recorded in it.
    return abs;
  }
}

const readerEnv = () => ({ home: process.env.HOME || '/', env: process.env });
const mb = (n: number): string => (n / 1e6).toFixed(1);

interface ImportOpts {
  all?: boolean;
  since?: string;
  project?: string;
  dryRun?: boolean;
}

function summaryRows(agents: AgentImportStats[]): string[][] {
  return agents.map((a) => [a.agent, String(a.found), String(a.imported), String(a.already), String(a.skipped), String(a.filtered), String(a.items), String(a.skipped_lines), mb(a.bytes_read)]);
}

export function registerHistoryCommands(program: Command, globals: () => GlobalOptions): void {
  const history = program.command('history').description('the sessions your agents already recorded on this machine (docs/history.md)');
  history
    .command('scan')
    .description('what each agent has here: sessions, bytes, date range, already in baton, not yet')
    .argument('[agent...]', `agents to look at (default: all: ${READER_AGENTS.join(', ')})`)
    .action((names: string[]) => {
      const g = globals();
      return run(g, () => {
        const agents = parseAgents(names, false);
        const store = openStore(g);
        const { agents: scans, errors } = scanHistory(store, { agents, readerEnv: readerEnv(), openDb: openDatabaseCopy });
        const now = Date.now();
        return {
          json: envelope({ agents: scans, errors }),
          text: [
            ...table(
              scans.map((s) => [s.agent, String(s.sessions), mb(s.bytes), s.first_at ? relativeTime(s.first_at, now) : '-', s.last_at ? relativeTime(s.last_at, now) : '-', String(s.in_baton), String(s.partial), String(s.not_yet)]),
              ['AGENT', 'SESSIONS', 'MB', 'OLDEST', 'NEWEST', 'IN BATON', 'PARTIAL', 'NOT YET'],
            ),
            ...errors.map((e) => color.yellow(`${e.agent}: ${e.code} ${e.message}`)),
          ],
        };
      });
    });
  history
    .command('import')
    .description('bring the agents\' sessions into baton, read-only, resumable (one baton session per agent session)')
    .argument('[agent...]', `agents to import (default, or --all: ${TRANSCRIPT_AGENTS.join(', ')})`)
    .option('--all', 'every agent baton reads')
    .option('--since <date>', 'only sessions active since DATE (2026-11-01, ISO 8601, or a duration like 30d)')
    .option('--project <dir>', 'only sessions whose working directory is DIR or under it')
    .option('--dry-run', 'say what would be imported; write nothing')
    .action((names: string[], opts: ImportOpts) => {
      const g = globals();
      return run(g, async () => {
        // Every flag checked before the store is opened: a refusal changes nothing.
        const agents = parseAgents(names, !!opts.all);
        const now = new Date();
        const since = opts.since !== undefined ? parseSince(opts.since, now) : null;
        const project = opts.project !== undefined ? projectFlag(opts.project) : null;
        // As on the hook path: manifest.json patched with each append, context.md rebuilt by its next reader.
        const store = new FsStore(resolveHome(g.home));
        // Each session's mutex is taken about once (a fresh session: one append): `.mutex` made
        // O_EXCL, as the hooks do, costs a create and an unlink; a parked token per session
        // costs a read of the folder, a create, a link and two unlinks (docs/adr/0018).
        if (!opts.dryRun) takeMutexByCreate();
        const line = g.quiet || g.json ? { update() {}, done() {} } : rateLine(opts.dryRun ? 'scanning' : 'importing');
        let result: Awaited<ReturnType<typeof importHistory>>;
        try {
          result = await importHistory(store, {
            agents,
            since,
            project,
            dryRun: !!opts.dryRun,
            readerEnv: readerEnv(),
            now: () => new Date(),
            openDb: openDatabaseCopy,
            progress: (p) => line.update({ done: p.sessions_done, total: p.sessions_total, bytesDone: p.bytes_done, bytesTotal: p.bytes_total }),
          });
        } finally {
          line.done();
        }
        const totals = result.agents.reduce((t, a) => ({ imported: t.imported + a.imported, already: t.already + a.already, items: t.items + a.items, skipped_lines: t.skipped_lines + a.skipped_lines }), { imported: 0, already: 0, items: 0, skipped_lines: 0 });
        const internal = result.errors.filter((e) => e.code === 'INTERNAL' || e.code.startsWith('WS2'));
        const reasons = new Map<string, number>();
        for (const a of result.agents) for (const s of a.skips) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
        return {
          json: envelope({ ...result, totals, ...(since ? { since: isoMillis(since) } : {}), ...(project ? { project } : {}) }),
          text: [
            ...table(summaryRows(result.agents), ['AGENT', 'FOUND', opts.dryRun ? 'WOULD IMPORT' : 'IMPORTED', 'ALREADY', 'SKIPPED', 'FILTERED', 'ITEMS', 'BAD LINES', 'MB READ']),
            opts.dryRun ? `dry run: ${totals.imported} session(s) would be imported; nothing written` : `${totals.imported} session(s) imported (${totals.items} items), ${totals.already} already in baton`,
            ...[...reasons].map(([r, n]) => color.yellow(`skipped ${n} line(s): ${r}`)),
            ...result.errors.map((e) => color.yellow(`${e.agent}: ${e.code} ${e.message}`)),
          ],
          exitCode: internal.length ? 1 : 0,
        };
      });
    });
}
