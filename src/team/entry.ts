// dist/team.cjs: the `team` and `sync` commands, loaded by dist/cli.cjs only when one of
// them runs, so neither the command line's other commands nor any hook loads `postgres`.
import * as fs from 'node:fs';
import { fail } from '../core/errors.ts';
import { isoMillis } from '../core/time.ts';
import { type CommandResult, type GlobalOptions, envelope, openStore, relativeTime, reportError, run, table } from '../cli/output.ts';
import { claimHome } from '../store/home.ts';
import { readMarker } from '../store/replica.ts';
import { type FsStore, cliWriter } from '../store/store.ts';
import { type TeamConfig, checkMachineName, checkUrl, readConfig, removeConfig, requireConfig, writeConfig } from './config.ts';
import { CHANNEL, connect, isConnectionError, maskUrl, migrate, unreachable } from './db.ts';
import { addRule, projectPath, removeRule, unsharedSessionsOf } from './projects.ts';
import { type SyncReport, type Team, conflictFiles, release, sessionRows, share, syncOnce, take, unshare } from './replicate.ts';
import { pickConflicts, resolveConflicts } from './resolve.ts';

/** Connects, migrates and records this machine as seen; TM002 when the database cannot be reached. */
async function openTeam(store: FsStore, cfg: TeamConfig): Promise<Team> {
  const sql = connect(cfg.url);
  try {
    await migrate(sql);
    await sql`insert into baton.machines (name) values (${cfg.machine}) on conflict (name) do update set last_seen = now()`;
  } catch (e) {
    await sql.end({ timeout: 0 }).catch(() => {});
    if (isConnectionError(e)) throw unreachable(cfg.url, e);
    throw e;
  }
  return { store, cfg, sql };
}

async function withTeam<T>(g: GlobalOptions, body: (t: Team) => Promise<T>): Promise<T> {
  const store = openStore(g);
  const t = await openTeam(store, requireConfig(store.home));
  try {
    return await body(t);
  } catch (e) {
    if (isConnectionError(e)) throw unreachable(t.cfg.url, e);
    throw e;
  } finally {
    await t.sql.end({ timeout: 1 }).catch(() => {});
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

const sleep = (ms: number, wake: { fn?: () => void }) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake.fn = () => {
      clearTimeout(timer);
      resolve();
    };
  });

/**
 * `sync --watch`: a long-running replicator. NOTIFY only wakes it (a missed one costs
 * latency: it also polls its own logs and the team every few seconds and catches up by
 * seq); a database that is down is retried with backoff; SIGTERM/SIGINT end it cleanly
 * between passes.
 */
async function watch(g: GlobalOptions, intervalMs: number): Promise<void> {
  const store = openStore(g);
  const cfg = requireConfig(store.home);
  let stopping = false;
  const wake: { fn?: () => void } = {};
  let dirty = true;
  const stop = () => {
    stopping = true;
    wake.fn?.();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const say = (line: string) => {
    if (g.json) process.stdout.write(`${JSON.stringify(JSON.parse(line))}\n`);
  };
  let backoff = 250;
  const sizes = new Map<string, number>();
  // The owned sessions' logs, by size: a change means something to push.
  let known = -1;
  const localChanged = (): boolean => {
    const ids = store.ids();
    // A new session may be due to a project rule (team share --project).
    let changed = ids.length !== known;
    known = ids.length;
    for (const id of ids) {
      const m = readMarker(store.dir(id));
      if (!m || m.owner !== m.machine) continue;
      const size = fs.statSync(`${store.dir(id)}/events.jsonl`, { throwIfNoEntry: false })?.size ?? 0;
      if (sizes.get(id) !== size) changed = true;
      sizes.set(id, size);
    }
    return changed;
  };
  while (!stopping) {
    let t: Team | null = null;
    try {
      t = await openTeam(store, cfg);
      await t.sql.listen(CHANNEL, () => {
        dirty = true;
        wake.fn?.();
      });
      backoff = 250;
      say(JSON.stringify({ event: 'connected', machine: cfg.machine }));
      let lastFull = 0;
      while (!stopping) {
        const now = Date.now();
        if (dirty || localChanged() || now - lastFull > 5000) {
          dirty = false;
          lastFull = now;
          const r = await syncOnce(t);
          if (r.shared.length || r.pushed.length || r.pulled.length || r.refused.length || r.unshared.length) {
            say(JSON.stringify({ event: 'synced', ...r }));
            if (!g.json && !g.quiet) process.stdout.write(`${syncText(r).join('\n')}\n`);
            for (const x of r.refused) process.stderr.write(`baton: ${x.code} ${x.message}\n`);
          }
          continue;
        }
        await sleep(intervalMs, wake);
      }
    } catch (e) {
      if (!isConnectionError(e) && !(e as { code?: string })?.code?.startsWith?.('TM002')) {
        await t?.sql.end({ timeout: 0 }).catch(() => {});
        throw e;
      }
      process.stderr.write(`baton: ${unreachable(cfg.url, e).message}; retrying in ${backoff} ms\n`);
      say(JSON.stringify({ event: 'unreachable', retry_ms: backoff }));
      await t?.sql.end({ timeout: 0 }).catch(() => {});
      t = null;
      await sleep(backoff, wake);
      backoff = Math.min(backoff * 2, 10_000);
      continue;
    }
    await t?.sql.end({ timeout: 1 }).catch(() => {});
  }
  say(JSON.stringify({ event: 'stopped' }));
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
        await t.sql.end({ timeout: 1 });
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
    const shared: { session: string; epoch: number; pushed: number }[] = [];
    for (const id of unsharedSessionsOf(store, root)) shared.push(await share(t, id));
    const text = [...shared.map((r) => `shared ${r.session}; pushed ${r.pushed} event(s)`), `sessions created in ${root} from now on are shared at the next sync`];
    return { json: { ok: true, project: root, shared }, text };
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
 * `session resume` on a shared session another machine owned (dist/cli.cjs calls this
 * only then): take it without --steal — pull everything, bump the epoch, end the foreign
 * lease — before the usual resume. WS105 names the owner when it is still owned.
 */
export async function takeForResume(g: GlobalOptions, id: string): Promise<{ epoch: number; previous_owner: string | null; pulled: number }> {
  return withTeam(g, async (t) => {
    const r = await take(t, id, false);
    return { epoch: r.epoch, previous_owner: r.previous_owner, pulled: r.pulled };
  });
}

/**
 * `session release` on a shared session this machine owns: connects first (so an unreachable
 * database refuses before the lease moves), releases the local lease (`releaseLease`), then
 * pushes everything and gives ownership up in the same transaction.
 */
export async function releaseForSession<T>(g: GlobalOptions, id: string, releaseLease: () => T): Promise<{ lease: T; pushed: number }> {
  return withTeam(g, async (t) => {
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
    const machines = (await t.sql`select name, last_seen from baton.machines order by name`).map((m) => ({ name: String(m.name), last_seen: new Date(m.last_seen).toISOString() }));
    const rows = await sessionRows(t.sql);
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
  } finally {
    await t.sql.end({ timeout: 1 }).catch(() => {});
  }
}

function conflictLines(c: ReturnType<typeof conflictFiles>): string[] {
  return c.map((x) => `conflict: ${x.events} event(s) of ${x.session} kept in ${x.file} (written after this machine lost ownership; once it owns the session again: baton team resolve ${x.session} --all)`);
}



// For the benchmarks (bench/cases/team-*.ts), which measure the replicator as shipped.
export { connect, migrate } from './db.ts';
export { share } from './replicate.ts';
