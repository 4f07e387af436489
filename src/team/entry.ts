// dist/team.cjs: the `team` and `sync` commands, loaded by dist/cli.cjs only when one of
// them runs, so neither the command line's other commands nor any hook loads `postgres`.
import { createHash } from 'node:crypto';
import { fail } from '../core/errors.ts';
import { adoptNativeSha256 } from '../core/hash.ts';
import { isoMillis } from '../core/time.ts';
import { type CommandResult, type GlobalOptions, envelope, openStore, relativeTime, reportError, run, table } from '../cli/output.ts';
import { claimHome } from '../store/home.ts';
import type { FsStore } from '../store/store.ts';
import { readMarker } from '../store/replica.ts';
import { cliWriter } from '../store/store.ts';
import { type TeamConfig, checkMachineName, checkUrl, readConfig, removeConfig, requireConfig, writeConfig } from './config.ts';
import { close, connect, guard, isConnectionError, kill, maskUrl, unreachable } from './db.ts';
import { addRule, projectPath, removeRule, unsharedSessionsOf } from './projects.ts';
import { type SyncReport, type Team, conflictFiles, release, sessionRows, share, shareMany, syncOnce, take, unshare } from './replicate.ts';
import { pickConflicts, resolveConflicts } from './resolve.ts';
import { Replicator, type ReplicatorEvent, openTeam } from './watch.ts';

// This bundle has its own copy of core/hash.ts: every chain check of a push or a pull uses
// node:crypto's sha256, not the pure one the hook path keeps.
adoptNativeSha256(createHash);

async function withTeam<T>(g: GlobalOptions, body: (t: Team) => Promise<T>): Promise<T> {
  return withStoreTeam(openStore(g), body);
}

/** A connection to the team of a store's home for the length of body (TM002 when unreachable). */
async function withStoreTeam<T>(store: FsStore, body: (t: Team) => Promise<T>): Promise<T> {
  const t = await openTeam(store, requireConfig(store.home));
  try {
    // A link cut mid-command is TM002 within seconds (db.ts guard), not a wait on TCP's timeouts.
    return await guard(t.cfg.url, () => [t.sql], () => body(t));
  } catch (e) {
    await kill(t.sql);
    if (isConnectionError(e)) throw unreachable(t.cfg.url, e);
    throw e;
  } finally {
    await close(t.sql);
  }
}

function syncText(r: SyncReport): string[] {
  const out: string[] = [];
  for (const id of r.shared) out.push(`shared ${id} (its project is shared)`);
  for (const p of r.pushed) out.push(`pushed ${p.pushed} event(s) of ${p.session} (team at seq ${p.last_seq})`);
  for (const p of r.pulled) {
    out.push(`pulled ${p.pulled} event(s) of ${p.session} (local at seq ${p.last_seq})`);
    if (p.conflict) out.push(`  ${p.conflict.events} event(s) written here after losing ownership kept in ${p.conflict.path}`);
  }
  for (const id of r.unshared) out.push(`${id} is no longer shared: the local copy is writable again`);
  for (const x of r.refused) out.push(`refused ${x.session}: ${x.code} ${x.message}`);
  if (out.length === 0) out.push('in sync');
  return out;
}

function syncResult(r: SyncReport): CommandResult {
  for (const x of r.refused) process.stderr.write(`baton: ${x.code} ${x.message}\n`);
  const first = r.refused[0];
  const problem = first ? { code: first.code, message: `${r.refused.length} session(s) refused, first ${first.session}: ${first.message}` } : null;
  return { json: envelope({ ...r }, problem), text: syncText(r), exitCode: r.refused.length ? 2 : 0 };
}

/**
 * `sync --watch`: the long-running replicator (watch.ts) in the foreground; SIGTERM/SIGINT
 * end it cleanly between passes. With --json, one line per event.
 */
async function watch(g: GlobalOptions, intervalMs: number): Promise<void> {
  const store = openStore(g);
  const cfg = requireConfig(store.home);
  const r = new Replicator(store, cfg, {
    intervalMs,
    onEvent: (e) => {
      if (g.json) process.stdout.write(`${JSON.stringify(e.event === 'unreachable' ? { event: e.event, retry_ms: e.retry_ms } : e)}\n`);
      if (e.event === 'synced') {
        if (!g.json && !g.quiet) process.stdout.write(`${syncText(e).join('\n')}\n`);
        for (const x of e.refused) process.stderr.write(`baton: ${x.code} ${x.message}\n`);
      }
      if (e.event === 'unreachable') process.stderr.write(`baton: ${e.message}; retrying in ${e.retry_ms} ms\n`);
    },
  });
  const stop = () => void r.stop();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await r.start();
}

export async function teamCommand(name: string, g: GlobalOptions, args: string[], opts: Record<string, unknown>): Promise<void> {
  if (name === 'sync' && opts.watch) {
    try {
      await watch(g, Number(opts.interval ?? 200));
    } catch (e) {
      reportError(g, e);
    }
    return;
  }
  await run(g, async (): Promise<CommandResult> => {
    switch (name) {
      case 'join': {
        const url = checkUrl(args[0]);
        const machine = checkMachineName(opts.name as string | undefined);
        const store = openStore(g);
        const cfg: TeamConfig = { url, machine, joined_at: isoMillis(new Date()) };
        const t = await openTeam(store, cfg);
        const [{ v }] = await t.sql`select max(version) as v from baton.schema_version`;
        await close(t.sql);
        claimHome(store.home);
        writeConfig(store.home, cfg);
        return { json: { ok: true, machine, url: maskUrl(url), schema_version: v }, text: `joined the team at ${maskUrl(url)} as ${machine} (schema version ${v})` };
      }
      case 'leave': {
        const store = openStore(g);
        const cfg = readConfig(store.home);
        removeConfig(store.home);
        return { json: { ok: true, left: !!cfg, machine: cfg?.machine ?? null }, text: cfg ? `left the team (this machine was ${cfg.machine})` : 'this machine was not in a team' };
      }
      case 'status':
        return status(g);
      case 'list':
        return withTeam(g, async (t) => {
          const rows = await sessionRows(t.sql);
          const text = rows.length
            ? table(
                rows.map((r) => [r.id, r.owner ?? '(released)', String(r.epoch), String(r.last_seq), r.project ?? r.workspace ?? '-', r.title]),
                ['ID', 'OWNER', 'EPOCH', 'SEQ', 'PROJECT', 'TITLE'],
              )
            : ['no shared session'];
          return { json: { ok: true, sessions: rows }, text };
        });
      case 'share':
      case 'unshare':
        if (opts.project !== undefined) return projectCommand(g, name, args, opts.project as string);
        return sessionCommand(g, name, args, opts);
      case 'take':
      case 'release':
        return sessionCommand(g, name, args, opts);
      case 'resolve': {
        const store = openStore(g);
        const id = store.resolve(args[0]);
        const names = pickConflicts(store, id, { conflict: opts.conflict as string | undefined, all: !!opts.all });
        const r = resolveConflicts(store, id, cliWriter(), names);
        const text = r.resolved.map(
          (x) => `resolved ${x.file}: ${x.appended} note(s) appended${x.already ? ` (${x.already} already there)` : ''}${x.skipped ? `, ${x.skipped} lease event(s) not re-appended` : ''}; kept in ${x.moved_to}`,
        );
        return { json: { ok: true, ...r }, text: [...text, 'the next sync pushes them'] };
      }
      case 'sync':
        return withTeam(g, async (t) => syncResult(await syncOnce(t)));
      default:
        fail('USAGE', `unknown team command ${name}`);
    }
  });
}

/** `team share|unshare --project PATH`: records or forgets the rule; share also shares the project's sessions now. */
async function projectCommand(g: GlobalOptions, name: string, args: string[], path: string): Promise<CommandResult> {
  if (args.length) fail('USAGE', `give a session ID or --project PATH, not both`);
  const root = projectPath(path);
  const store = openStore(g);
  const cfg = requireConfig(store.home);
  if (name === 'unshare') {
    const removed = removeRule(store.home, cfg, root);
    return {
      json: { ok: true, project: root, removed },
      text: removed ? `new sessions of ${root} are no longer shared; the ones already shared stay shared (baton team unshare ID for each)` : `no share rule for ${root}: nothing changed`,
    };
  }
  return withTeam(g, async (t) => {
    addRule(store.home, cfg, root, new Date());
    const { shared, refused } = await shareMany(t, unsharedSessionsOf(store, root));
    for (const x of refused) process.stderr.write(`baton: ${x.error.code} ${x.error.message}\n`);
    const text = [...shared.map((r) => `shared ${r.session}; pushed ${r.pushed} event(s)`), `sessions created in ${root} from now on are shared at the next sync`];
    return { json: { ok: true, project: root, shared, refused: refused.map((x) => ({ session: x.session, code: x.error.code, message: x.error.message })) }, text };
  });
}

async function sessionCommand(g: GlobalOptions, name: string, args: string[], opts: Record<string, unknown>): Promise<CommandResult> {
  if (args[0] === undefined) fail('USAGE', `team ${name} needs a session ID${name === 'share' || name === 'unshare' ? ' or --project PATH' : ''}`);
  const store = openStore(g);
  const id = store.resolve(args[0]);
  return withTeam(g, async (t) => {
          if (name === 'share') {
            const r = await share(t, id);
            return { json: { ok: true, ...r }, text: `shared ${id} (owned here, epoch ${r.epoch}); pushed ${r.pushed} event(s)` };
          }
          if (name === 'unshare') {
            const r = await unshare(t, id);
            return { json: { ok: true, ...r }, text: `unshared ${id}: the team's copy is deleted; this machine keeps its log` };
          }
          if (name === 'release') {
            const r = await release(t, id);
            return { json: { ok: true, ...r }, text: `released ${id} after pushing ${r.pushed} event(s): any machine may take it` };
          }
          const r = await take(t, id, !!opts.steal);
          return { json: { ok: true, ...r }, text: `took ${id} (epoch ${r.epoch}, from ${r.previous_owner ?? 'nobody'}); pulled ${r.pulled} event(s)` };
  });
}

/**
 * `session resume` / `thread/resume` on a shared session another machine owned (src/ops/team.ts
 * calls this only then, from dist/cli.cjs or dist/serve.cjs): take it without --steal — pull everything, bump the epoch, end the foreign
 * lease — before the usual resume. WS105 names the owner when it is still owned.
 */
export async function takeForResume(store: FsStore, id: string): Promise<{ epoch: number; previous_owner: string | null; pulled: number }> {
  return withStoreTeam(store, async (t) => {
    const r = await take(t, id, false);
    return { epoch: r.epoch, previous_owner: r.previous_owner, pulled: r.pulled };
  });
}

/**
 * `session release` / `thread/release` on a shared session this machine owns: connects first (so an unreachable
 * database refuses before the lease moves), releases the local lease (`releaseLease`), then
 * pushes everything and gives ownership up in the same transaction.
 */
export async function releaseForSession<T>(store: FsStore, id: string, releaseLease: () => T): Promise<{ lease: T; pushed: number }> {
  return withStoreTeam(store, async (t) => {
    // Still the owner at the epoch this machine knows? (Stolen while offline: refused before the lease moves.)
    const [row] = await t.sql`select owner, epoch, since from baton.sessions where id = ${id}`;
    if (!row) fail('TM003', `session ${id} is not shared`, { session: id });
    if (row.owner !== t.cfg.machine || Number(row.epoch) !== readMarker(t.store.dir(id))?.epoch) {
      const since = new Date(row.since).toISOString();
      fail('WS105', `session ${id} owned by ${row.owner ?? 'nobody'} since ${since}: this machine lost ownership; its next sync keeps what it wrote since in conflicts/`, {
        session: id,
        owner: row.owner,
        since,
      });
    }
    const lease = releaseLease();
    const r = await release(t, id);
    return { lease, pushed: r.pushed };
  });
}

async function status(g: GlobalOptions): Promise<CommandResult> {
  const store = openStore(g);
  const cfg = requireConfig(store.home);
  const conflicts = conflictFiles(store);
  const base = { machine: cfg.machine, url: maskUrl(cfg.url), joined_at: cfg.joined_at, conflicts };
  let t: Team;
  try {
    t = await openTeam(store, cfg);
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return {
      json: { ok: true, ...base, reachable: false, error: { code: err.code ?? 'TM002', message: err.message } },
      text: [`machine ${cfg.machine} · ${maskUrl(cfg.url)} · unreachable: ${err.message}`, ...conflictLines(conflicts)],
    };
  }
  try {
    const sql = t.sql;
    const [machineRows, rows] = await guard(cfg.url, () => [sql], () => Promise.all([sql`select name, last_seen from baton.machines order by name`, sessionRows(sql)]));
    const machines = machineRows.map((m) => ({ name: String(m.name), last_seen: new Date(m.last_seen).toISOString() }));
    const sessions = rows.map((r) => {
      const local = store.exists(r.id) ? store.view(r.id).scan.lastSeq : 0;
      return { id: r.id, owner: r.owner, epoch: r.epoch, team_seq: r.last_seq, local_seq: local, lag: r.last_seq - local, owned_here: r.owner === cfg.machine };
    });
    const text = [
      `machine ${cfg.machine} · ${maskUrl(cfg.url)} · reachable`,
      `machines: ${machines.map((m) => `${m.name} (seen ${relativeTime(m.last_seen)})`).join(', ')}`,
      ...(sessions.length ? table(sessions.map((s) => [s.id, s.owner ?? '(released)', String(s.team_seq), String(s.local_seq), s.owned_here ? `${-s.lag} to push` : `${s.lag} to pull`]), ['ID', 'OWNER', 'TEAM', 'LOCAL', 'LAG']) : ['no shared session']),
      ...conflictLines(conflicts),
    ];
    return { json: { ok: true, ...base, reachable: true, machines, sessions }, text, exitCode: conflicts.length ? 1 : 0 };
  } catch (e) {
    if (!isConnectionError(e)) throw e;
    await kill(t.sql);
    const err = unreachable(cfg.url, e);
    return {
      json: { ok: true, ...base, reachable: false, error: { code: err.code, message: err.message } },
      text: [`machine ${cfg.machine} · ${maskUrl(cfg.url)} · unreachable: ${err.message}`, ...conflictLines(conflicts)],
    };
  } finally {
    await close(t.sql);
  }
}

/** What `baton doctor` says of the team (docs/team.md): read-only, one bounded connection. */
export interface TeamHealth {
  machine: string;
  url: string;
  reachable: boolean;
  error?: { code: string; message: string };
  /** Events of sessions owned here that the team database does not have yet (reachable only). */
  to_push: number;
  /** Events the team has that this machine has not pulled (reachable only). */
  to_pull: number;
  /** Shared sessions this machine owns, by their markers (known without the database). */
  owned_here: number;
}

/**
 * The team's health for doctor, without writing anything (no migration, no machine row, unlike
 * status): connect within the URL's connect_timeout, read the shared sessions, compare with the
 * local logs. An unreachable database is a result, never a throw.
 */
export async function teamHealth(store: FsStore, cfg: TeamConfig): Promise<TeamHealth> {
  const owned = store.ids().filter((id) => readMarker(store.dir(id))?.owner === cfg.machine).length;
  const base = { machine: cfg.machine, url: maskUrl(cfg.url), owned_here: owned, to_push: 0, to_pull: 0 };
  let sql: ReturnType<typeof connect> | null = null;
  try {
    sql = connect(cfg.url);
    const s = sql;
    const rows = await guard(cfg.url, () => [s], () => sessionRows(s));
    let push = 0;
    let pull = 0;
    for (const r of rows) {
      const local = store.exists(r.id) ? store.view(r.id).scan.lastSeq : 0;
      if (r.owner === cfg.machine) push += Math.max(0, local - r.last_seq);
      else pull += Math.max(0, r.last_seq - local);
    }
    return { ...base, reachable: true, to_push: push, to_pull: pull };
  } catch (e) {
    if (sql) await kill(sql);
    sql = null;
    const err = isConnectionError(e) ? unreachable(cfg.url, e) : (e as { code?: string; message?: string });
    return { ...base, reachable: false, error: { code: err.code ?? 'TM002', message: String(err.message ?? e).split('\n')[0] } };
  } finally {
    if (sql) await close(sql);
  }
}

function conflictLines(c: ReturnType<typeof conflictFiles>): string[] {
  return c.map((x) => `conflict: ${x.events} event(s) of ${x.session} kept in ${x.file} (written after this machine lost ownership; once it owns the session again: baton team resolve ${x.session} --all)`);
}



// For doctor (src/ops/team.ts, teamHealthOf).
export { readConfig as readTeamConfig } from './config.ts';

// For the benchmarks (bench/cases/team-*.ts), which measure the replicator as shipped.
export { connect, migrate } from './db.ts';
export { share, shareMany } from './replicate.ts';

/**
 * `baton serve`'s replicator (dist/serve.cjs requires this bundle only when its home has
 * joined a team): the same loop as `sync --watch`, started in the background; the server
 * reads status() into server.json and stop()s it on SIGTERM. Returns null when the home has
 * not joined a team.
 */
export function startReplicator(store: FsStore, opts: { intervalMs?: number; onEvent?: (e: ReplicatorEvent) => void; onFailure?: (e: unknown) => void }): Replicator | null {
  const cfg = readConfig(store.home);
  if (!cfg) return null;
  const r = new Replicator(store, cfg, opts);
  r.start().catch((e) => opts.onFailure?.(e));
  return r;
}
