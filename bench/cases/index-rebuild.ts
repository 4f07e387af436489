// index.rebuild (bench.md): `baton index rebuild` over 10,000 sessions / 1,000,000 events
// (quick: 1,000 / 100,000), a child process each time, against a child that reads every
// log and JSON.parses every line — the least any rebuild must do. Interleaved; target
// ratio ≤ 2.5 and the rebuild's peak RSS ≤ 300 MiB.
// index.rebuild.items: the same over a store of transcript items (bench/items-fixture.ts:
// 2,000 sessions × 500 transcript.item events, quick: 200 × 500), same baseline and target.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { indexFixture } from '../index-fixture.ts';
import { itemsFixture } from '../items-fixture.ts';
import { MiB, interleaved, peakRssOfChild, timeProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TARGET = 2.5;
const RSS_LIMIT = 300 * MiB;

export const PARSE_ALL = `
const fs = require('fs'), path = require('path');
const root = path.join(process.argv[1], 'sessions');
let n = 0;
for (const id of fs.readdirSync(root)) {
  let s;
  try { s = fs.readFileSync(path.join(root, id, 'events.jsonl'), 'utf8'); } catch { continue; }
  for (const line of s.split('\\n')) if (line) { JSON.parse(line); n++; }
}
if (n === 0) process.exit(3);
`;

/** One rebuild measurement over a store of `sessions` sessions holding at least `events` events. */
async function rebuildCase(name: string, root: string, home: string, sessions: number, events: number, pairs: number, extra: Record<string, unknown>): Promise<CaseResult> {
  const bin = join(root, 'bin', 'baton.cjs');
  const env = { BATON_HOME: home, NO_COLOR: '1' };
  const dropDb = (): void => {
    for (const f of ['baton.db', 'baton.db-wal', 'baton.db-shm']) fs.rmSync(join(home, f), { force: true });
  };
  let peak = 0;
  let method = '';
  let stats: Record<string, unknown> = {};
  timeProcess(process.execPath, ['-e', PARSE_ALL, home]); // warm the page cache for both sides
  const r = await interleaved(
    pairs,
    async () => {
      dropDb();
      const run = await peakRssOfChild(process.execPath, [bin, '--json', 'index', 'rebuild'], env, { stdout: 'pipe' });
      peak = Math.max(peak, run.peakRssBytes);
      method = run.method;
      stats = JSON.parse(run.stdout);
      return run.ms;
    },
    () => timeProcess(process.execPath, ['-e', PARSE_ALL, home]),
  );
  // Other index cases may have appended to the fixture: at least every generated event.
  const complete = stats.sessions === sessions && Number(stats.events) >= events;
  return {
    name,
    ours: r.a,
    baseline: r.b,
    ratio: r.ratio,
    unit: 'ms',
    target: `ratio <= ${TARGET}; peak RSS <= 300 MiB`,
    pass: r.ratio <= TARGET && peak <= RSS_LIMIT && complete,
    details: {
      sessions,
      events,
      ...extra,
      indexed_sessions: stats.sessions,
      indexed_events: stats.events,
      searchable: stats.texts,
      peak_rss_mib: peak / MiB,
      rss_method: method,
      ratios: r.ratios,
      pairs,
    },
  };
}

const indexRebuild: BenchCase = {
  name: 'index.rebuild',
  async run(ctx): Promise<CaseResult[]> {
    const sessions = ctx.quick ? 1000 : 10_000;
    const fx = indexFixture(sessions, 100);
    const plain = await rebuildCase('index.rebuild', ctx.root, fx.home, sessions, fx.events, ctx.quick ? 3 : 2, {});
    // index.rebuild.items: the same over transcript items (search.items's fixture; quick: 100,000 items, not 1,000,000).
    const itemSessions = ctx.quick ? 200 : 2000;
    const ix = itemsFixture(itemSessions, 500);
    const items = await rebuildCase('index.rebuild.items', ctx.root, ix.home, itemSessions, ix.events, ctx.quick ? 3 : 2, { items: ix.items, ...(ctx.quick ? { quick_items: `quick: ${ix.items.toLocaleString('en-US')} items, not 1,000,000` } : {}) });
    return [plain, items];
  },
};

export default indexRebuild;
