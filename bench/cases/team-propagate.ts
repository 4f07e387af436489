// team.propagate (team.md, "What is measured"): an append on machine A until the event is
// durable in machine B's local log, with `baton sync --watch` (the real binary) running on
// both, against a private PostgreSQL (test/pg.ts). p50 and p99 over N appends (1,000; 50 with
// --quick). No baseline: the goal is absolute, p99 ≤ 1 s.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { startPg } from '../../test/pg.ts';
import { nowMs, percentile } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const GOAL_MS = 1000;

const teamPropagate: BenchCase = {
  name: 'team.propagate',
  async run(ctx): Promise<CaseResult> {
    const n = ctx.quick ? 50 : 1000;
    const pg = await startPg();
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const homes = { a: join(ctx.tmp, 'a'), b: join(ctx.tmp, 'b') };
    const cli = (home: string, args: string[]) => {
      const r = spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, BATON_HOME: home }, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`baton ${args.join(' ')}: ${r.stderr}`);
    };
    cli(homes.a, ['team', 'join', pg.url, '--name', 'a']);
    cli(homes.b, ['team', 'join', pg.url, '--name', 'b']);
    const store = new FsStore(homes.a);
    const writer: Writer = { surface: 'cli', instanceId: 'cli@bench@a', actor: 'agent' };
    const { id } = store.create({ id: 'propagate', title: 'propagate', workspace: { cwd: ctx.tmp }, writer, leaseMs: 3600_000 });
    cli(homes.a, ['team', 'share', id]);
    const watchers: ChildProcess[] = [homes.a, homes.b].map((home) =>
      spawn(process.execPath, [bin, 'sync', '--watch', '--quiet'], { env: { ...process.env, BATON_HOME: home }, stdio: 'ignore' }),
    );
    const bLog = join(homes.b, 'sessions', id, 'events.jsonl');
    const size = () => fs.statSync(bLog, { throwIfNoEntry: false })?.size ?? 0;
    const waitFor = async (check: () => boolean) => {
      const end = Date.now() + 30_000;
      while (!check()) {
        if (Date.now() > end) throw new Error('an event did not reach B within 30 s');
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    const lat: number[] = [];
    try {
      await waitFor(() => size() > 0);
      for (let i = 0; i < n; i++) {
        const before = size();
        const t0 = nowMs();
        store.append(id, { type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text: `propagate ${i}` } }, writer);
        await waitFor(() => size() > before);
        lat.push(nowMs() - t0);
      }
    } finally {
      for (const w of watchers) w.kill('SIGTERM');
      await Promise.all(watchers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.on('exit', r)))));
      pg.destroy();
    }
    const p50 = percentile(lat, 50);
    const p99 = percentile(lat, 99);
    return {
      name: 'team.propagate',
      ours: p99,
      baseline: null,
      ratio: null,
      unit: 'ms p99',
      target: `p99 <= ${GOAL_MS} ms`,
      pass: p99 <= GOAL_MS,
      details: { appends: n, p50_ms: p50, p99_ms: p99, max_ms: Math.max(...lat) },
    };
  },
};

export default teamPropagate;
