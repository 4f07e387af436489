// The long-running replicator: `baton sync --watch`, and the one `baton serve` runs when its
// home has joined a team (docs/team.md). NOTIFY only wakes it (a missed one costs latency: it
// also looks at its owned logs every interval and at the whole team every 5 s, catching up
// by seq); a database that is down is retried with backoff (250 ms doubling to 10 s); stop()
// ends it between passes. State: in memory only (status()); everything it moves is in the
// local logs and the team's copy, so a crash loses nothing a restart does not redo.
import * as fs from 'node:fs';
import { readMarker } from '../store/replica.ts';
import type { FsStore } from '../store/store.ts';
import type { TeamConfig } from './config.ts';
import { CHANNEL, close, connect, guard, isConnectionError, kill, maskUrl, migrate, unreachable } from './db.ts';
import { type SyncReport, type Team, syncOnce } from './replicate.ts';

/** What a replicator reports as it runs (`sync --watch --json` prints one line each). */
export type ReplicatorEvent =
  | { event: 'connected'; machine: string }
  | ({ event: 'synced' } & SyncReport)
  | { event: 'unreachable'; retry_ms: number; message: string }
  | { event: 'stopped' };

export interface ReplicatorStatus {
  machine: string;
  /** The team's URL, password masked. */
  url: string;
  state: 'connecting' | 'connected' | 'unreachable' | 'stopped';
  /** When it entered that state. */
  since: string;
  /** The last pass that moved something, and the totals since the start. */
  last_sync_at: string | null;
  pushed: number;
  pulled: number;
  /** The last refusal (WS203 ...) or connection error, if any. */
  last_error: { code: string; message: string } | null;
  /** While unreachable: the wait before the next attempt. */
  retry_ms: number | null;
}

/**
 * Connects, migrates and records this machine as seen; TM002 when the database cannot be
 * reached, or stops answering meanwhile (guard).
 */
export async function openTeam(store: FsStore, cfg: TeamConfig): Promise<Team> {
  const sql = connect(cfg.url);
  try {
    await guard(cfg.url, () => [sql], async () => {
      await migrate(sql);
      await sql`insert into baton.machines (name) values (${cfg.machine}) on conflict (name) do update set last_seen = now()`;
    });
  } catch (e) {
    await kill(sql);
    if (isConnectionError(e)) throw unreachable(cfg.url, e);
    throw e;
  }
  return { store, cfg, sql };
}

export class Replicator {
  private stopping = false;
  private dirty = true;
  private wakeFn: (() => void) | null = null;
  private readonly sizes = new Map<string, number>();
  private known = -1;
  private readonly st: ReplicatorStatus;
  private done: Promise<void> | null = null;

  constructor(
    private readonly store: FsStore,
    private readonly cfg: TeamConfig,
    private readonly opts: { intervalMs?: number; onEvent?: (e: ReplicatorEvent) => void } = {},
  ) {
    this.st = { machine: cfg.machine, url: maskUrl(cfg.url), state: 'connecting', since: new Date().toISOString(), last_sync_at: null, pushed: 0, pulled: 0, last_error: null, retry_ms: null };
  }

  status(): ReplicatorStatus {
    return { ...this.st };
  }

  /** Runs until stop(); rejects only on an unexpected failure (not a database that is down). */
  start(): Promise<void> {
    this.done ??= this.loop();
    return this.done;
  }

  /** Ends the loop between passes and closes the connection; resolves when it has. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeFn?.();
    await this.done?.catch(() => {});
  }

  private setState(state: ReplicatorStatus['state'], extra: Partial<ReplicatorStatus> = {}): void {
    if (this.st.state !== state) this.st.since = new Date().toISOString();
    Object.assign(this.st, { state, retry_ms: null }, extra);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeFn = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** The owned sessions' logs, by size: a change means something to push. */
  private localChanged(): boolean {
    const ids = this.store.ids();
    // A new session may be due to a project rule (team share --project).
    let changed = ids.length !== this.known;
    this.known = ids.length;
    for (const id of ids) {
      const m = readMarker(this.store.dir(id));
      if (!m || m.owner !== m.machine) continue;
      const size = fs.statSync(`${this.store.dir(id)}/events.jsonl`, { throwIfNoEntry: false })?.size ?? 0;
      if (this.sizes.get(id) !== size) changed = true;
      this.sizes.set(id, size);
    }
    return changed;
  }

  private async loop(): Promise<void> {
    const say = (e: ReplicatorEvent) => this.opts.onEvent?.(e);
    const interval = this.opts.intervalMs ?? 200;
    let backoff = 250;
    while (!this.stopping) {
      let t: Team | null = null;
      try {
        t = await openTeam(this.store, this.cfg);
        const team = t;
        // Every round trip is guarded: a link cut without a reset is found within
        // TIMEOUTS.probeEveryMs + probeTimeoutMs (db.ts), not after the kernel's TCP timeouts.
        await guard(this.cfg.url, () => [team.sql], () =>
          team.sql.listen(CHANNEL, () => {
            this.dirty = true;
            this.wakeFn?.();
          }),
        );
        backoff = 250;
        this.setState('connected');
        say({ event: 'connected', machine: this.cfg.machine });
        let lastFull = 0;
        while (!this.stopping) {
          const now = Date.now();
          if (this.dirty || this.localChanged() || now - lastFull > 5000) {
            this.dirty = false;
            lastFull = now;
            const r = await guard(this.cfg.url, () => [team.sql], () => syncOnce(team));
            if (r.shared.length || r.pushed.length || r.pulled.length || r.refused.length || r.unshared.length) {
              this.st.last_sync_at = new Date().toISOString();
              this.st.pushed += r.pushed.reduce((n, p) => n + p.pushed, 0);
              this.st.pulled += r.pulled.reduce((n, p) => n + p.pulled, 0);
              const x = r.refused[0];
              if (x) this.st.last_error = { code: x.code, message: x.message };
              say({ event: 'synced', ...r });
            }
            continue;
          }
          await this.sleep(interval);
        }
      } catch (e) {
        if (t) await kill(t.sql);
        if (!isConnectionError(e) && (e as { code?: string })?.code !== 'TM002') {
          this.setState('stopped', { last_error: { code: (e as { code?: string })?.code ?? 'INTERNAL', message: (e as Error)?.message ?? String(e) } });
          throw e;
        }
        const why = unreachable(this.cfg.url, e);
        this.setState('unreachable', { retry_ms: backoff, last_error: { code: why.code, message: why.message } });
        say({ event: 'unreachable', retry_ms: backoff, message: why.message });
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 10_000);
        continue;
      }
      if (t) await close(t.sql);
    }
    this.setState('stopped');
    say({ event: 'stopped' });
  }
}
