// server.list (bench.md, server.md): thread/list {all, limit 50} over 10,000 sessions (quick:
// 1,000) from 20 concurrent WebSocket clients of one `baton serve`: p50 and p99 per call, as
// ratios to the CLI's `session list --all --limit 50 --json` process measured in the same run,
// interleaved (a round of the clients, then a CLI run). Ratios reported; every page must be
// complete and newest first.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { indexFixture } from '../index-fixture.ts';
import { nowMs, percentile, runProcess, timeProcess } from '../lib.ts';
import { benchClient, startBenchServer } from '../server-lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const serverList: BenchCase = {
  name: 'server.list',
  async run(ctx): Promise<CaseResult> {
    const sessions = ctx.quick ? 1000 : 10_000;
    const clientsN = 20;
    const rounds = ctx.quick ? 3 : 5;
    const callsPerRound = 5;
    const fx = indexFixture(sessions, 100);
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const env = { BATON_HOME: fx.home, NO_COLOR: '1' };
    if (!fs.existsSync(join(fx.home, 'baton.db'))) runProcess(process.execPath, [bin, 'index', 'rebuild'], env);
    const cliArgs = [bin, 'session', 'list', '--all', '--limit', '50', '--json'];
    const s = await startBenchServer(ctx.root, fx.home);
    try {
      const clients = await Promise.all(Array.from({ length: clientsN }, (_, i) => benchClient(ctx.root, s, `list-${i}`)));
      let ok = true;
      const first = await clients[0].threadList({ all: true, limit: 50 });
      ok &&= first.data.length === 50 && first.data.every((t, i) => i === 0 || first.data[i - 1].last_touched_at >= t.last_touched_at) && first.nextCursor !== null;
      timeProcess(process.execPath, cliArgs, env);
      const server: number[] = [];
      const cli: number[] = [];
      for (let r = 0; r < rounds; r++) {
        await Promise.all(
          clients.map(async (c) => {
            for (let k = 0; k < callsPerRound; k++) {
              const t0 = nowMs();
              const page = await c.threadList({ all: true, limit: 50 });
              server.push(nowMs() - t0);
              ok &&= page.data.length === 50;
            }
          }),
        );
        cli.push(timeProcess(process.execPath, cliArgs, env));
      }
      for (const c of clients) c.close();
      const p50 = percentile(server, 50);
      const p99 = percentile(server, 99);
      const cli50 = percentile(cli, 50);
      const cli99 = percentile(cli, 99);
      return {
        name: 'server.list',
        ours: p50,
        baseline: cli50,
        ratio: p50 / cli50,
        unit: 'ms p50',
        target: 'p50 and p99 ratios to the CLI reported',
        pass: ok,
        details: { sessions, clients: clientsN, calls: server.length, p50_ms: p50, p99_ms: p99, cli_p50_ms: cli50, cli_p99_ms: cli99, p99_ratio: p99 / cli99, pages_complete_and_sorted: ok },
      };
    } finally {
      await s.stop();
    }
  },
};

export default serverList;
