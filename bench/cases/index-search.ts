// index.search (bench.md): FTS queries over the 1,000,000 events (quick: 100,000), in
// process, on a caught-up index; p50 of the query times ≤ 30 ms (absolute, recorded).
// Queries are single mid-frequency words and two-word pairs from the fixture's vocabulary.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { openIndex } from '../../src/index/db.ts';
import { searchIndex } from '../../src/index/query.ts';
import { reconcile } from '../../src/index/reconcile.ts';
import { indexFixture } from '../index-fixture.ts';
import { median, nowMs, percentile, runProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TARGET_MS = 30;

const indexSearch: BenchCase = {
  name: 'index.search',
  async run(ctx): Promise<CaseResult> {
    const sessions = ctx.quick ? 1000 : 10_000;
    const fx = indexFixture(sessions, 100);
    if (!fs.existsSync(join(fx.home, 'baton.db'))) runProcess(process.execPath, [join(ctx.root, 'bin', 'baton.cjs'), 'index', 'rebuild'], { BATON_HOME: fx.home });
    const db = openIndex(fx.home);
    if (!db) throw new Error('no index');
    try {
      reconcile(db, fx.home, { nowMs: Date.now() });
      const w = fx.queryWords;
      const queries = [...w, ...w.slice(0, 4).map((x, i) => `${x} ${w[w.length - 1 - i]}`), `${w[0].slice(0, 4)}*`];
      const times: number[] = [];
      const hits: number[] = [];
      for (let round = 0; round < 5; round++) {
        for (const q of queries) {
          const t0 = nowMs();
          const r = searchIndex(db, fx.home, q, { cwd: null, limit: 20 });
          times.push(nowMs() - t0);
          if (round === 0) hits.push(r.length);
        }
      }
      const p50 = median(times);
      return {
        name: 'index.search',
        ours: p50,
        baseline: null,
        ratio: null,
        unit: 'ms p50',
        target: `p50 <= ${TARGET_MS} ms`,
        pass: p50 <= TARGET_MS && hits.every((n) => n > 0),
        details: { events: fx.events, queries: queries.length, runs: times.length, p90_ms: percentile(times, 90), max_ms: Math.max(...times), hits_per_query: hits },
      };
    } finally {
      db.close();
    }
  },
};

export default indexSearch;
