// server.replay (bench.md, server.md): replaying a 1 GiB session (quick: 32 MiB) through
// event/replay pages of 1 MiB over WebSocket, against `cat` of the log. Target: peak RSS of
// the server ≤ 150 MiB; the throughput ratio to cat is reported. Every event must arrive once.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { MiB, nowMs, timeProcess } from '../lib.ts';
import { benchClient, startBenchServer } from '../server-lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';
import { generateLog } from './log-stream.ts';

const RSS_LIMIT = 150 * MiB;

const serverReplay: BenchCase = {
  name: 'server.replay',
  async run(ctx): Promise<CaseResult> {
    const target = (ctx.quick ? 32 : 1024) * MiB;
    const home = join(ctx.tmp, 'home');
    const id = 'server-replay-bench';
    const dir = join(home, 'sessions', id);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, 'events.jsonl');
    const gen = generateLog(path, target, 0x5e7e, ctx.tmp);
    const s = await startBenchServer(ctx.root, home);
    try {
      const c = await benchClient(ctx.root, s, 'replay');
      const replay = async (): Promise<{ ms: number; events: number; pages: number }> => {
        const t0 = nowMs();
        let after = 0;
        let events = 0;
        let pages = 0;
        for (;;) {
          const page = await c.eventReplay({ threadId: id, after });
          events += page.events.length;
          pages++;
          after = page.nextAfter;
          if (!page.hasMore) break;
        }
        return { ms: nowMs() - t0, events, pages };
      };
      timeProcess('cat', [path]); // warm the page cache for both sides
      const runs = ctx.quick ? 3 : 1;
      const ours: number[] = [];
      const base: number[] = [];
      let last = { ms: 0, events: 0, pages: 0 };
      for (let i = 0; i < runs; i++) {
        last = await replay();
        ours.push(last.ms);
        base.push(timeProcess('cat', [path]));
      }
      c.close();
      const a = ours.sort((x, y) => x - y)[Math.floor(runs / 2)];
      const b = base.sort((x, y) => x - y)[Math.floor(runs / 2)];
      const peak = s.peakRss();
      return {
        name: 'server.replay',
        ours: a,
        baseline: b,
        ratio: a / b,
        unit: 'ms',
        target: 'server peak RSS <= 150 MiB; ratio to cat reported',
        pass: peak <= RSS_LIMIT && last.events === gen.events,
        details: { log_mib: gen.bytes / MiB, events: gen.events, delivered: last.events, pages: last.pages, peak_rss_mib: peak / MiB, ours_mib_per_s: gen.bytes / MiB / (a / 1000), runs },
      };
    } finally {
      await s.stop();
    }
  },
};

export default serverReplay;
