// `baton session ...` (cli.md, Sessions): parses arguments, calls the store, formats.
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import { type Actor, MAX_LINE_BYTES, type StoredEvent } from '../core/events.ts';
import { emptyView, foldEvent, presentEvent } from '../core/session.ts';
import { happenedAt } from '../core/time.ts';
import { readInputBounded } from '../store/bounded-read.ts';
import { LOG_FILE, scanLog } from '../store/log.ts';
import { archiveSession, addArtifact, deleteSession, pruneSessions, redactSession, removeArtifact, verifySession } from '../store/operations.ts';
import { contextMdSeq, pointerSummary, readManifest } from '../store/projections.ts';
import { type FsStore, cliWriter } from '../store/store.ts';
import { redactionsOf } from '../ops/events.ts';
import { appendEntry, createSession, existingDir, renameSession, renewSession } from '../ops/session.ts';
import { indexConflictFor, newestSessionHere, listCommand as listSessionsCommand } from './session-list.ts';
import { parseCount, parseDurationFlag, parseSessionIdFlag, parseTitle } from './args.ts';
import { type CommandResult, type GlobalOptions, collect, color, envelope, openStore, relativeTime, run, terminalText, warn } from './output.ts';
import { progress } from './progress.ts';
import { releaseShared, resumeShared } from '../ops/team.ts';

/** How far the projections were behind the log when read (WS202), or null when fresh. */
export interface ProjectionLag {
  code: 'WS202';
  manifest_seq: number | null;
  context_seq: number | null;
  last_seq: number;
  rebuilt: true;
}

/**
 * Rebuilds the projections when they are behind the log's last seq. The hook appends
 * without refreshing them (ADR 0003), so a lag is normal operation: it is reported to the
 * caller (session show's --json, doctor), never warned about on stderr.
 */
function freshProjections(store: FsStore, id: string, last: number): ProjectionLag | null {
  const dir = store.dir(id);
  const m = readManifest(dir);
  const cseq = contextMdSeq(dir);
  if (m && m.status.last_event_seq >= last && cseq !== null && cseq >= last) return null;
  store.refreshProjections(id);
  return { code: 'WS202', manifest_seq: m?.status.last_event_seq ?? null, context_seq: cseq, last_seq: last, rebuilt: true };
}

function eventSummary(ev: StoredEvent): string {
  const p = ev.payload as Record<string, unknown>;
  const pick = p.text ?? p.title ?? p.path ?? p.summary ?? p.reason ?? p.episode ?? p.source ?? p.lease_until ?? '';
  const s = typeof pick === 'string' ? pick : JSON.stringify(pick);
  const one = s.replace(/\s+/g, ' ');
  return one.length > 80 ? `${one.slice(0, 77)}...` : one;
}

const oneLine = (s: string, n: number): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 3)}...` : one;
};

/** A transcript item as a reader sees it: who (role, or the tool called / answering), what, which files. */
function itemLine(ev: StoredEvent): string {
  const p = ev.payload as Record<string, any>;
  const tool = typeof p.tool?.name === 'string' ? p.tool.name : '';
  const who = p.kind === 'message' ? p.role : p.kind === 'tool_call' ? `-> ${tool}` : p.kind === 'tool_result' ? `<- ${tool || 'result'}` : p.kind;
  let what = typeof p.text === 'string' ? p.text : '';
  // A tool call shows what it ran (its shell command) first: an agent's own text for it may be
  // the model's description of the call (opencode's and Kilo's title), not the command.
  const input = p.kind === 'tool_call' ? p.tool?.input : undefined;
  const command = typeof input?.command === 'string' ? input.command : typeof input?.cmd === 'string' ? input.cmd : '';
  if (command.trim()) what = command;
  else if (p.kind === 'tool_call' && !what.trim() && input !== undefined) what = JSON.stringify(input);
  const files = Array.isArray(p.files) && p.files.length ? `  [${p.files.slice(0, 4).join(', ')}${p.files.length > 4 ? `, +${p.files.length - 4}` : ''}]` : '';
  const cut = p.truncated ? ' (cut)' : '';
  const agent = `${p.agent}${p.model ? `/${p.model}` : ''}`;
  return `${String(ev.seq).padStart(5)}  ${p.at ?? ev.ts}  ${oneLine(String(who), 18).padEnd(18)}  ${oneLine(agent, 24).padEnd(12)}  ${oneLine(what, 80)}${cut}${files}`;
}

function eventLine(ev: StoredEvent): string {
  if (ev.type === 'transcript.item') return itemLine(ev);
  return `${String(ev.seq).padStart(5)}  ${happenedAt(ev)}  ${ev.type.padEnd(18)}  ${ev.surface.padEnd(12)}  ${eventSummary(ev)}`;
}

export function registerSessionCommands(program: Command, globals: () => GlobalOptions): void {
  const session = program.command('session').description('create, resume, append to, follow, verify and archive sessions');

  session
    .command('new')
    .description('create a session, take its lease, print its id')
    .argument('<title>', 'the session title')
    .option('--id <id>', 'an explicit id (else <slug>-<base36 ms>)')
    .option('--task <task>', 'a task id to record')
    .option('--allow <list>', 'surfaces allowed to write, comma-separated (cli,hook,mcp,api,web,ide-skill)')
    .option('--lease <duration>', 'lease length', '10m')
    .option('--cwd <dir>', 'the workspace (default: the current directory)')
    .option('--parent <id>', 'the parent session')
    .action((title: string, o) =>
      run(globals(), () => {
        // Every flag is checked before the store is touched.
        parseTitle(title);
        const cwd = resolve(o.cwd ?? process.cwd());
        if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) fail('USAGE', `--cwd ${cwd} is not a directory`);
        const leaseMs = parseDurationFlag(o.lease, '--lease');
        const id0 = o.id === undefined ? undefined : parseSessionIdFlag(o.id, '--id');
        const parent = o.parent === undefined ? undefined : parseSessionIdFlag(o.parent, '--parent');
        const allowed = o.allow === undefined ? undefined : String(o.allow).split(',').map((s: string) => s.trim()).filter(Boolean);
        if (allowed?.length === 0) fail('USAGE', '--allow names no surface: give a comma-separated list such as cli,hook');
        const store = openStore(globals());
        const r = createSession(store, { title, id: id0, taskId: o.task, parentSession: parent, allowedRuntimes: allowed, cwd, leaseMs, writer: cliWriter() });
        return { json: { ok: true, ...r }, text: r.id };
      }),
    );

  session
    .command('list')
    .description('sessions of this workspace (exact directory), newest first')
    .option('--state <state>', 'active, suspended or archived')
    .option('--cwd <dir>', 'another workspace')
    .option('--all', 'every workspace')
    .option('--limit <n>', 'at most n sessions')
    .action((o) => run(globals(), () => listSessionsCommand(globals(), o)));

  session
    .command('show')
    .description('manifest, lease holder, pointer, open episode, artifacts, refs, last 10 events')
    .argument('<id>', 'session id or unambiguous prefix')
    .action((idArg: string) =>
      run(globals(), () => {
        const g = globals();
        const store = openStore(g);
        const id = store.resolve(idArg);
        // One pass over the log: the view, and the last 10 events in a ring.
        const view = emptyView(id);
        const ring: StoredEvent[] = [];
        const scan = store.events(id, 1, (ev) => {
          foldEvent(view, ev);
          ring.push(ev);
          if (ring.length > 10) ring.shift();
        });
        const lag = freshProjections(store, id, scan.lastSeq);
        const manifest = readManifest(store.dir(id));
        const lock = store.lock(id);
        const pointer = pointerSummary(store.dir(id));
        const last = ring.map((e) => presentEvent(e, view.redactions));
        const now = Date.now();
        const conflict = indexConflictFor(store.home, id);
        const openEpisodes = view.open_episodes.map((e) => ({ ...e, idle_seconds: Math.round((now - Date.parse(view.last_touched_at)) / 1000) }));
        const json = {
          ok: true as const,
          manifest,
          lease: lock ? { ...lock, valid: Date.parse(lock.lease.lease_until) > now } : null,
          pointer: pointer ? { status: pointer.status, revision: pointer.revision } : null,
          open_episodes: openEpisodes,
          refs: view.refs,
          artifacts: [...view.artifacts].map(([name, a]) => ({ name, sha256: a.sha256, seq: a.seq })),
          projections_behind: lag,
          corrupt: scan.corrupt,
          torn: scan.torn,
          projection_conflict: conflict,
          last_events: last,
        };
        const text: string[] = [];
        text.push(`${color.bold(view.title || id)}  ${color.dim(id)}`);
        text.push(`state      ${manifest?.status.state ?? store.lifecycle(id, view.archived)}`);
        text.push(`workspace  ${view.workspace?.cwd ?? '-'}${view.workspace?.git_branch ? ` (${view.workspace.git_branch})` : ''}`);
        text.push(`created    ${view.created_at} by ${view.created_by}`);
        text.push(`touched    ${relativeTime(view.last_touched_at)} (seq ${view.last_seq}, ${view.events} events)`);
        text.push(`lease      ${lock ? `${lock.holder.instance_id} until ${lock.lease.lease_until}${Date.parse(lock.lease.lease_until) > now ? '' : ' (expired)'}` : 'none'}`);
        text.push(`pointer    ${pointer ? `${pointer.status} r${pointer.revision}` : 'none'}`);
        text.push(`episode    ${openEpisodes.length ? openEpisodes.map((e) => `${e.episode} open, idle ${e.idle_seconds}s`).join('; ') : 'none open'}`);
        text.push(`artifacts  ${view.artifacts.size ? [...view.artifacts].map(([name, a]) => `${name} (${a.sha256.slice(0, 8)}, seq ${a.seq})`).join(', ') : 'none'}`);
        text.push(`refs       ${view.refs.length ? view.refs.map((r) => `${r.source}@${r.source_version} ${r.digest}`).join(', ') : 'none'}`);
        if (scan.corrupt) text.push(color.red(`corrupt    line ${scan.corrupt.line}: ${scan.corrupt.reason} (WS201)`));
        if (conflict) text.push(color.yellow(`index      ${conflict}`));
        if (scan.torn) text.push(color.yellow(`torn tail  ${scan.torn.bytes} bytes at ${scan.torn.offset} (run baton session repair ${id})`));
        text.push('', color.bold('last events'), ...last.map(eventLine));
        return { json, text };
      }),
    );

  session
    .command('resume')
    .description('take the lease, record the resume, print the context (team mode, on a shared session another machine owned: take it first, never stolen)')
    .argument('[id]', 'session id or unambiguous prefix (or --last)')
    .option('--last', 'the newest session of this directory that is not archived')
    .option('--steal', 'take an expired lease held by another surface')
    .option('--lease <duration>', 'lease length', '10m')
    .option('--workspace <dir>', 'work in another directory for this resume (recorded, origin unchanged)')
    .action((idArg: string | undefined, o) =>
      run(globals(), async () => {
        const g = globals();
        if ((idArg === undefined) === !o.last) fail('USAGE', 'give exactly one of a session id or --last');
        const leaseMs = parseDurationFlag(o.lease, '--lease');
        const store = openStore(g);
        const id = idArg === undefined ? newestSessionHere(g) : store.resolve(idArg);
        const workspace = o.workspace ? existingDir(o.workspace, 'USAGE', (abs) => `--workspace ${abs} does not exist or is not a directory`) : undefined;
        // Team mode (docs/team.md, src/ops/team.ts): a shared session another machine owned is taken first (never stolen).
        const { team, ...r } = await resumeShared(store, id, cliWriter(), { leaseMs, steal: !!o.steal, workspace });
        return {
          json: { ok: true, ...r, ...(team ? { team } : {}) },
          text: team ? `took ${id} from ${team.previous_owner ?? 'nobody'} (epoch ${team.epoch}, pulled ${team.pulled} event(s))\n${r.context}` : r.context,
        };
      }),
    );

  session
    .command('renew')
    .description('renew the lease')
    .argument('<id>')
    .option('--lease <duration>', 'lease length', '10m')
    .action((idArg: string, o) =>
      run(globals(), () => {
        const leaseMs = parseDurationFlag(o.lease, '--lease');
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const r = renewSession(store, id, cliWriter(), leaseMs);
        return { json: { ok: true, ...r }, text: `lease on ${id} until ${r.lease_until}` };
      }),
    );

  session
    .command('release')
    .description('release the lease (team mode, on a shared session owned here: then push everything and give up ownership)')
    .argument('<id>')
    .action((idArg: string) =>
      run(globals(), async () => {
        const store = openStore(globals());
        const id = store.resolve(idArg);
        // Team mode (src/ops/team.ts): on a shared session owned here, the lease, then ownership (everything pushed first).
        const r = await releaseShared(store, id, cliWriter());
        if (r.team) return { json: { ok: true, ...r }, text: `released ${id} and its ownership (pushed ${r.team.pushed} event(s)): any machine may take it` };
        return { json: { ok: true, ...r }, text: `released ${id}` };
      }),
    );

  session
    .command('rename')
    .description('give a session a new title (a session.updated event); needs the lease')
    .argument('<id>', 'session id or unambiguous prefix')
    .argument('<title>', 'the new title')
    .action((idArg: string, title: string) =>
      run(globals(), () => {
        parseTitle(title);
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const ev = renameSession(store, id, cliWriter(), title);
        return { json: { ok: true, id, title: ev.payload.title, seq: ev.seq }, text: `${id} is now ${JSON.stringify(ev.payload.title)}` };
      }),
    );

  session
    .command('delete')
    .description('delete a session and its files for good (asks on a terminal; --yes otherwise); refused while another surface holds its lease')
    .argument('<id>', 'session id (or unambiguous prefix)')
    .option('--yes', 'do not ask')
    .action((idArg: string, o) =>
      run(globals(), async () => {
        const g = globals();
        const store = openStore(g);
        const id = store.resolve(idArg);
        if (!o.yes) {
          if (!process.stdin.isTTY || !process.stderr.isTTY || g.json) fail('USAGE', `deleting ${id} cannot be undone: confirm with --yes (no terminal to ask on)`, { command: `baton session delete ${id} --yes` });
          if (!(await confirm(`delete session ${id} and all its files? this cannot be undone [y/N] `))) fail('USAGE', `not deleted: ${id} (answer y to delete)`);
        }
        deleteSession(store, id, cliWriter());
        return { json: { ok: true, id, deleted: true }, text: `deleted ${id}` };
      }),
    );

  session
    .command('append')
    .description('append a context entry (or another event type); needs the lease')
    .argument('<id>')
    .option('--text <text>', 'the text')
    .option('--stdin', 'read the text from stdin')
    .option('--type <type>', 'event type (context.appended by default; custom types start with x.)', 'context.appended')
    .option('--tag <tag>', 'a tag (repeatable)', collect, [])
    .option('--actor <actor>', 'user, agent or system', 'user')
    .action((idArg: string, o) =>
      run(globals(), () => {
        if ((o.text === undefined) === !o.stdin) fail('USAGE', 'give exactly one of --text or --stdin');
        if (!['user', 'agent', 'system'].includes(o.actor)) fail('USAGE', '--actor must be user, agent or system');
        if (o.tag.some((t: string) => t.trim() === '')) fail('USAGE', '--tag must not be empty');
        const store = openStore(globals());
        const id = store.resolve(idArg);
        // No text can make a line over 1 MiB: read at most that (+1), refuse past it (WS205).
        const text: string = o.stdin ? readInputBounded(0, MAX_LINE_BYTES, 'WS205').toString('utf8') : o.text;
        if (text === '') fail('USAGE', `the text is empty (${o.stdin ? 'nothing on stdin' : '--text ""'}): nothing appended`);
        const ev = appendEntry(store, id, cliWriter(), { text, type: o.type, tags: o.tag, actor: o.actor as Actor });
        return { json: { ok: true, id, seq: ev.seq, h: ev.h }, text: `${id} seq ${ev.seq}` };
      }),
    );

  const artifact = session
    .command('artifact')
    .description('files registered with a session: add copies a file into its artifacts/ folder, rm removes one (both need the lease)');
  artifact
    .command('add')
    .description('copy FILE into the session\'s artifacts/ and record artifact.added (artifact.updated when the name exists with other bytes; nothing when identical)')
    .argument('<id>', 'session id or unambiguous prefix')
    .argument('<file>', 'the file to copy')
    .option('--as <name>', 'the name inside artifacts/ (default: the file name)')
    .action((idArg: string, file: string, o) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const r = addArtifact(store, id, file, cliWriter(), o.as);
        return {
          json: { ok: true, id, name: r.name, sha256: r.sha256, unchanged: r.unchanged, seq: r.event?.seq ?? null },
          text: r.unchanged ? `${r.name} unchanged` : `${r.name} ${r.event?.type === 'artifact.updated' ? 'updated' : 'added'} (seq ${r.event?.seq})`,
        };
      }),
    );
  artifact
    .command('rm')
    .description('remove an artifact from artifacts/ and record artifact.removed')
    .argument('<id>', 'session id or unambiguous prefix')
    .argument('<name>', 'its name inside artifacts/')
    .action((idArg: string, name: string) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const ev = removeArtifact(store, id, name, cliWriter());
        return { json: { ok: true, id, name, seq: ev.seq }, text: `${name} removed (seq ${ev.seq})` };
      }),
    );

  session
    .command('snapshot')
    .description('rewrite context.md now (keeps the lease)')
    .argument('<id>')
    .action((idArg: string) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const m = store.refreshProjections(id);
        return { json: { ok: true, id, last_event_seq: m.status.last_event_seq, path: join(store.dir(id), 'context.md') }, text: join(store.dir(id), 'context.md') };
      }),
    );

  session
    .command('log')
    .description('print events; --follow streams new ones as other processes append them')
    .argument('<id>')
    .option('--tail <n>', 'only the last n events')
    .option('--since <seq>', 'events after this seq')
    .option('--type <type>', 'only this type (a trailing .* matches a namespace)')
    .option('--follow', 'keep printing new events')
    .action((idArg: string, o) => run(globals(), () => logCommand(globals(), idArg, o)));

  session
    .command('archive')
    .description('write retrospective.md, append session.archived, freeze the session (needs the lease released)')
    .argument('<id>')
    .option('--retro-template <name>', 'default, brief, or NAME for <home>/templates/NAME.md (WS402 if unknown)', 'default')
    .option('--to <dir>', 'also copy the archived session out to this new folder')
    .option('--force', 'overwrite the --to target')
    .action((idArg: string, o) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const r = archiveSession(store, id, cliWriter(), { template: o.retroTemplate, to: o.to ? resolve(o.to) : undefined, force: !!o.force });
        return { json: { ok: true, id, seq: r.event.seq, retrospective: r.retrospective, target_path: r.target_path ?? null }, text: `archived ${id}: ${r.retrospective}${r.target_path ? `, copied to ${r.target_path}` : ''}` };
      }),
    );

  session
    .command('verify')
    .description('recompute seq, chain, JSON validity and projection freshness')
    .argument('[id]')
    .option('--all', 'every session')
    .action((idArg: string | undefined, o) =>
      run(globals(), () => {
        const g = globals();
        const store = openStore(g);
        if (!idArg === !o.all) fail('USAGE', 'give a session id or --all');
        const ids = o.all ? store.ids() : [store.resolve(idArg as string)];
        const bar = progress(ids.length, 'verify');
        const reports = ids.map((id) => {
          const r = verifySession(store, id);
          bar.tick();
          return r;
        });
        bar.done();
        const bad = reports.filter((r) => !r.ok);
        const text: string[] = [];
        for (const r of reports) {
          if (r.corrupt) text.push(`${r.session}  ${color.red('CORRUPT')}  line ${r.corrupt.line}: ${r.corrupt.reason} (WS201)`);
          else if (r.torn) text.push(`${r.session}  ${color.yellow('TORN TAIL')}  ${r.torn.bytes} bytes after seq ${r.last_seq}: run baton session repair ${r.session}`);
          else text.push(`${r.session}  ${color.green('ok')}  ${r.events} events, chain valid${r.projections.manifest !== 'fresh' || r.projections.context !== 'fresh' ? ` (projections ${r.projections.manifest}/${r.projections.context}: WS202)` : ''}`);
        }
        const problemOf = (r: (typeof bad)[number]): string =>
          r.corrupt ? `events log of ${r.session} corrupt at line ${r.corrupt.line}: ${r.corrupt.reason}` : `events log of ${r.session} has a torn tail of ${r.torn?.bytes} bytes: run baton session repair ${r.session}`;
        // run() prints the error's line; with --all, one more line per bad session.
        if (o.all) for (const r of bad) process.stderr.write(`baton: WS201 ${problemOf(r)}\n`);
        const first = bad[0];
        return {
          json: o.all
            ? envelope({ sessions: reports }, first ? { code: 'WS201', message: `${bad.length} corrupt or torn log(s) found`, sessions: bad.map((b) => b.session) } : null)
            : envelope({ ...reports[0] }, first ? { code: 'WS201', message: problemOf(first), line: first.corrupt?.line ?? null } : null),
          text,
          exitCode: bad.length ? 2 : 0,
        };
      }),
    );

  session
    .command('repair')
    .description('quarantine a torn tail, rebuild projections; never drops acknowledged history')
    .argument('<id>')
    .action((idArg: string) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const r = store.repair(id);
        if (r.corrupt) {
          fail('WS201', `events log of ${id} is corrupt at line ${r.corrupt.line} (${r.corrupt.reason}); repair does not drop acknowledged history`, { line: r.corrupt.line });
        }
        return { json: { ok: true, id, quarantined: r.quarantined, last_seq: r.last_seq }, text: r.quarantined ? `torn tail moved to ${r.quarantined}; projections rebuilt` : 'no torn tail; projections rebuilt' };
      }),
    );

  session
    .command('redact')
    .description('hide past matches of a pattern in every presentation (the raw log keeps them)')
    .argument('<id>')
    .requiredOption('--pattern <re>', 'a regular expression (JavaScript syntax)')
    .option('--timeout <duration>', 'how long the pattern may run over the session: past it REDACT_TIMEOUT, nothing written (a pattern like (a+)+$ backtracks without bound)', '5s')
    .action((idArg: string, o) =>
      run(globals(), async () => {
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const r = await redactSession(store, id, o.pattern, cliWriter(), parseDurationFlag(o.timeout, '--timeout'));
        return { json: { ok: true, id, redacted_seqs: r.seqs, seq: r.event?.seq ?? null }, text: r.seqs.length ? `redacted ${r.seqs.length} event(s): ${r.seqs.join(', ')}` : 'no match' };
      }),
    );

  session
    .command('prune')
    .description('list suspended sessions untouched for a duration; delete them with --apply')
    .requiredOption('--older-than <duration>', 'e.g. 30d')
    .option('--apply', 'delete them')
    .action((o) =>
      run(globals(), () => {
        const olderThan = parseDurationFlag(o.olderThan, '--older-than', { allowZero: true });
        const store = openStore(globals());
        const r = pruneSessions(store, olderThan, !!o.apply);
        return {
          json: { ok: true, applied: !!o.apply, sessions: r },
          text: r.length ? r.map((x) => `${x.deleted ? 'deleted' : 'would delete'}  ${x.id}  (last touched ${x.last_touched_at})`) : 'nothing to prune',
        };
      }),
    );
}

/** One y/N question on the terminal (stderr), the answer from stdin. */
async function confirm(question: string): Promise<boolean> {
  const { createInterface } = process.getBuiltinModule('node:readline/promises') as typeof import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

function typeMatches(filter: string | undefined, type: string): boolean {
  if (!filter) return true;
  if (filter.endsWith('.*')) return type.startsWith(filter.slice(0, -1));
  return type === filter;
}

async function logCommand(g: GlobalOptions, idArg: string, o: { tail?: string; since?: string; type?: string; follow?: boolean }): Promise<CommandResult> {
  const since = o.since !== undefined ? parseCount(o.since, '--since') : 0;
  const tailN = o.tail !== undefined ? parseCount(o.tail, '--tail') : undefined;
  const store = openStore(g);
  const id = store.resolve(idArg);
  const redactions = redactionsOf(store, id);
  const out = process.stdout;
  // --json is one envelope, streamed as the log is read: {"ok":true,"session":..,"events":[..]};
  // with --follow it is JSON Lines, one event a line (cli.md).
  const envelope = !!g.json && !o.follow;
  let pending = envelope ? `{"ok":true,"session":${JSON.stringify(id)},"events":[` : '';
  let emitted = 0;
  const flush = (force = false): void => {
    if (pending.length > (force ? 0 : 1 << 16)) {
      out.write(pending);
      pending = '';
    }
  };
  const emit = (ev: StoredEvent, raw: string): void => {
    const shown = redactions.size ? presentEvent(ev, redactions) : ev;
    const line = g.json ? (shown === ev ? raw : JSON.stringify(shown)) : terminalText(eventLine(shown));
    pending += envelope ? `${emitted ? ',' : ''}${line}` : `${line}\n`;
    emitted++;
    flush();
  };
  let ring: { ev: StoredEvent; raw: string }[] = [];
  const scan = store.events(id, since + 1, (ev, raw) => {
    if (!typeMatches(o.type, ev.type)) return;
    if (tailN !== undefined) {
      ring.push({ ev, raw });
      if (ring.length > tailN) ring.shift();
    } else emit(ev, raw);
  });
  for (const r of ring) emit(r.ev, r.raw);
  ring = [];
  if (envelope) pending += ']}\n';
  flush(true);
  if (scan.corrupt) warn(g, 'WS201', `events log of ${id} is corrupt at line ${scan.corrupt.line} (${scan.corrupt.reason}); later events are not shown`);
  if (scan.torn) warn(g, 'WS201', `events log of ${id} has a torn tail (${scan.torn.bytes} bytes), skipped`);
  if (o.follow) {
    // Reads only what was appended since: from the byte offset, continuing the chain.
    let from = { offset: scan.validBytes, seq: scan.lastSeq, h: scan.lastH };
    const path = join(store.dir(id), LOG_FILE);
    for (;;) {
      await new Promise((r) => setTimeout(r, 200));
      let size = 0;
      try {
        size = fs.statSync(path).size;
      } catch {
        break;
      }
      if (size <= from.offset) continue;
      const next = scanLog(path, (ev, raw) => {
        if (typeMatches(o.type, ev.type)) emit(ev, raw);
      }, from);
      flush(true);
      if (next.corrupt) {
        warn(g, 'WS201', `events log of ${id} became corrupt at line ${next.corrupt.line}`);
        break;
      }
      from = { offset: next.validBytes, seq: next.lastSeq, h: next.lastH };
    }
  }
  // Everything went out as it was found; nothing more to print.
  return { json: null, printed: true };
}

