// history.import (transcripts.md, "What is measured"): `baton history import claude codex`
// over generated transcripts in the real formats (bench/history-fixture.ts: the recorded
// fixtures' lines, uuids rewritten) — 1 GiB, 5,000 sessions; --quick 64 MiB with sessions in
// proportion; BATON_BENCH_HISTORY_MIB sets the size — into an empty store each time, against a
// straight-line floor in the same run: read every file, JSON.parse every line, write one line
// per item, fsync once per session. Reported as MB/s, ours over the floor's (target ≥ 0.5), and
// the import's peak RSS (≤ 200 MiB, the child's maxRSS).
import * as fs from 'node:fs';
import { join } from 'node:path';
import { historyFixture } from '../history-fixture.ts';
import { MiB, interleaved, peakRssOfChild, timeProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TARGET = 0.5;
const RSS_LIMIT = 200 * MiB;

export const FLOOR = `
const fs = require('fs'), path = require('path');
const [home, out] = process.argv.slice(1);
const files = [];
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (e.name.endsWith('.jsonl')) files.push(p); } };
walk(path.join(home, '.claude', 'projects'));
walk(path.join(home, '.codex', 'sessions'));
fs.mkdirSync(out, { recursive: true });
let items = 0, n = 0;
for (const f of files) {
  const lines = fs.readFileSync(f, 'utf8').split('\\n');
  const fd = fs.openSync(path.join(out, String(n++)), 'w');
  for (const line of lines) {
    if (!line) continue;
    const o = JSON.parse(line);
    if (o.type === 'user' || o.type === 'assistant' || o.type === 'response_item') {
      fs.writeSync(fd, JSON.stringify({ id: o.uuid || (o.payload && o.payload.id) || null, body: o.message || o.payload }) + '\\n');
      items++;
    }
  }
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}
if (items === 0) process.exit(3);
`;

const historyImport: BenchCase = {
  name: 'history.import',
  async run(ctx): Promise<CaseResult> {
    const mib = Number(process.env.BATON_BENCH_HISTORY_MIB) || (ctx.quick ? 64 : 1024);
    const sessions = Math.max(2, Math.round((5000 * mib) / 1024));
    const home = join(ctx.tmp, 'home');
    const fx = historyFixture(home, mib * MiB, sessions);
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const store = join(ctx.tmp, 'baton');
    const floorOut = join(ctx.tmp, 'floor');
    const env = { HOME: home, BATON_HOME: store, NO_COLOR: '1', CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined };
    const pairs = ctx.quick ? 2 : 1;
    let peak = 0;
    let method = '';
    let summary: Record<string, unknown> = {};
    timeProcess(process.execPath, ['-e', FLOOR, home, floorOut]); // warm the page cache for both sides
    const r = await interleaved(
      pairs,
      async () => {
        fs.rmSync(store, { recursive: true, force: true });
        const run = await peakRssOfChild(process.execPath, [bin, '--json', 'history', 'import', 'claude', 'codex'], env, { stdout: 'pipe', timeoutMs: 3_600_000 });
        peak = Math.max(peak, run.peakRssBytes);
        method = run.method;
        summary = JSON.parse(run.stdout);
        return run.ms;
      },
      () => {
        fs.rmSync(floorOut, { recursive: true, force: true });
        return timeProcess(process.execPath, ['-e', FLOOR, home, floorOut], undefined, { timeoutMs: 3_600_000 });
      },
    );
    const mbps = (ms: number): number => fx.bytes / 1e6 / (ms / 1000);
    const ratio = mbps(r.a) / mbps(r.b);
    const totals = (summary.totals ?? {}) as Record<string, number>;
    const imported = totals.imported ?? 0;
    return {
      name: 'history.import',
      ours: mbps(r.a),
      baseline: mbps(r.b),
      ratio,
      unit: 'MB/s',
      target: `ratio >= ${TARGET} (ours MB/s over the floor's); peak RSS <= 200 MiB`,
      pass: ratio >= TARGET && peak <= RSS_LIMIT && imported === sessions,
      details: {
        mib,
        sessions,
        bytes: fx.bytes,
        imported_sessions: imported,
        items: totals.items,
        ours_ms: r.a,
        floor_ms: r.b,
        peak_rss_mib: peak / MiB,
        rss_method: method,
        pairs,
      },
    };
  },
};

export default historyImport;
