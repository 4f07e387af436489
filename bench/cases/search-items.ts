// search.items (transcripts.md, "What is measured"): queries over 1,000,000 transcript items
// (2,000 sessions × 500; quick: 200 × 500 = 100,000, said in the details), the index built
// once (untimed, its time recorded), then, in process, through the index API the CLI calls
// (src/index/api.ts searchSessions: open, catch up with the logs, query, close): plain words,
// two words, `--role assistant`, `--agent`, `--file`. Target p50 ≤ 30 ms and p99 ≤ 150 ms over
// every query; every query must hit and every hit must pass its filter.
// Also search.items.cli: one `baton search WORD --all` process against `node -e 0`,
// interleaved, median of per-pair ratios; target ≤ 3.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type SearchFilter, searchSessions } from '../../src/index/api.ts';
import { namesFile } from '../../src/index/query.ts';
import { itemsFixture } from '../items-fixture.ts';
import { interleaved, median, nowMs, percentile, runProcess, timeProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const P50_MS = 30;
const P99_MS = 150;
const CLI_RATIO = 3;
const ITEMS_PER = 500;

interface Query {
  kind: 'words' | 'two-words' | 'role' | 'agent' | 'file';
  q: string;
  filter: Partial<SearchFilter>;
}

const searchItems: BenchCase = {
  name: 'search.items',
  async run(ctx): Promise<CaseResult[]> {
    const sessions = ctx.quick ? 200 : 2000;
    const tGen = nowMs();
    const fx = itemsFixture(sessions, ITEMS_PER);
    const genMs = nowMs() - tGen;
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const env = { BATON_HOME: fx.home, NO_COLOR: '1' };
    let buildMs: number | null = null;
    if (!fs.existsSync(join(fx.home, 'baton.db'))) buildMs = runProcess(process.execPath, [bin, 'index', 'rebuild'], env).ms;

    const w = fx.queryWords;
    const queries: Query[] = [
      ...w.map((q): Query => ({ kind: 'words', q, filter: {} })),
      ...w.slice(0, 4).map((x, i): Query => ({ kind: 'two-words', q: `${x} ${w[w.length - 1 - i]}`, filter: {} })),
      ...w.slice(0, 4).map((q): Query => ({ kind: 'role', q, filter: { role: 'assistant' } })),
      ...(['claude', 'codex', 'gemini', 'pi'] as const).map((agent, i): Query => ({ kind: 'agent', q: w[i + 2], filter: { agent } })),
      ...fx.queryFiles.map(({ file, word }): Query => ({ kind: 'file', q: word, filter: { file } })),
    ];
    const filterOf = (x: Query): SearchFilter => ({ cwd: null, limit: 20, ...x.filter });
    searchSessions(fx.home, w[0], filterOf(queries[0])); // the first query loads SQLite's pages: not counted

    const times: number[] = [];
    const byKind: Record<string, number[]> = {};
    const hits: number[] = [];
    const wrong: string[] = [];
    const rounds = ctx.quick ? 3 : 5;
    for (let round = 0; round < rounds; round++) {
      for (const x of queries) {
        const t0 = nowMs();
        const r = searchSessions(fx.home, x.q, filterOf(x));
        const dt = nowMs() - t0;
        times.push(dt);
        (byKind[x.kind] ??= []).push(dt);
        if (round > 0) continue;
        hits.push(r.hits.length);
        if (r.source !== 'index') wrong.push(`${x.q}: answered by a scan`);
        for (const h of r.hits) {
          const bad =
            h.type !== 'transcript.item' ||
            (x.filter.role !== undefined && h.role !== x.filter.role) ||
            (x.filter.agent !== undefined && h.agent !== x.filter.agent) ||
            (x.filter.file !== undefined && !namesFile(h.files, x.filter.file, h.workspace));
          if (bad) wrong.push(`${x.kind} ${x.q}: ${h.session}#${h.seq}`);
        }
      }
    }
    const p50 = median(times);
    const p99 = percentile(times, 99);
    const allHit = hits.every((n) => n > 0);

    // The CLI process a user runs, against the floor any Node process pays.
    let k = 0;
    const pairs = ctx.quick ? 10 : 20;
    runProcess(process.execPath, [bin, 'search', w[0], '--all'], env); // warm: the same state the measured runs see
    const cli = await interleaved(
      pairs,
      () => timeProcess(process.execPath, [bin, 'search', w[k++ % w.length], '--all'], env),
      () => timeProcess(process.execPath, ['-e', '0'], env),
    );

    const kindP50 = Object.fromEntries(Object.entries(byKind).map(([kind, xs]) => [`${kind}_p50_ms`, median(xs)]));
    const kindMax = Object.fromEntries(Object.entries(byKind).map(([kind, xs]) => [`${kind}_max_ms`, Math.max(...xs)]));
    const size = { items: fx.items, sessions, quick_items: ctx.quick ? `quick: ${fx.items.toLocaleString('en-US')} items, not 1,000,000` : undefined };
    return [
      {
        name: 'search.items',
        ours: p50,
        baseline: null,
        ratio: null,
        unit: 'ms p50',
        target: `p50 <= ${P50_MS} ms, p99 <= ${P99_MS} ms`,
        pass: p50 <= P50_MS && p99 <= P99_MS && allHit && wrong.length === 0,
        details: {
          ...size,
          p99_ms: p99,
          max_ms: Math.max(...times),
          queries: queries.length,
          runs: times.length,
          ...kindP50,
          ...kindMax,
          hits_per_query: hits,
          wrong_hits: wrong.slice(0, 5),
          fixture_ms: genMs,
          index_build_ms: buildMs,
        },
      },
      {
        name: 'search.items.cli',
        ours: cli.a,
        baseline: cli.b,
        ratio: cli.ratio,
        unit: 'ms',
        target: `ratio <= ${CLI_RATIO}`,
        pass: cli.ratio <= CLI_RATIO,
        details: { ...size, command: 'baton search WORD --all', pairs, ours_ms_median: cli.a, node_e0_ms_median: cli.b, node: process.version },
      },
    ];
  },
};

export default searchItems;
