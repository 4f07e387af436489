// append.concurrent (bench.md): 8 processes × 1000 appends (quick: 8 × 100) to one session
// through the store API, started together; then the log is verified: 0 lost, 0 duplicated,
// seq contiguous, chain valid, no refused append. events/s is reported, no ratio.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { scanLog } from '../../src/store/log.ts';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { nowMs, startRacer } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

interface WorkerReport {
  worker: number;
  acked: number[];
  errors: Record<string, number>;
  ms: number;
}

const appendConcurrent: BenchCase = {
  name: 'append.concurrent',
  async run(ctx): Promise<CaseResult> {
    const procs = 8;
    const count = ctx.quick ? 100 : 1000;
    const home = join(ctx.tmp, 'home');
    const store = new FsStore(home);
    const writer: Writer = { surface: 'cli', instanceId: 'cli@bench@concurrent', actor: 'user' };
    const { id } = store.create({ title: 'concurrent append bench', workspace: { cwd: ctx.tmp }, writer });

    const worker = join(ctx.root, 'bench', 'workers', 'append-worker.cjs');
    const workers = Array.from({ length: procs }, (_, w) => startRacer<WorkerReport>(`append.concurrent worker ${w}`, [worker, home, id, String(w), String(count)]));
    await Promise.all(workers.map((w) => w.ready));
    const t0 = nowMs();
    for (const w of workers) w.go();
    const reports = await Promise.all(workers.map((w) => w.done));
    const wallMs = nowMs() - t0;

    // Verify the log: chain and seq (scanLog), then each acknowledged event exactly once.
    const path = join(store.dir(id), 'events.jsonl');
    const seen = new Map<string, number>();
    const seqs: number[] = [];
    const scan = scanLog(path, (ev) => {
      seqs.push(ev.seq);
      if (ev.type !== 'prompt.submitted') return;
      const m = /^worker (\d+) prompt (\d+)$/.exec(String(ev.payload.text));
      if (m) seen.set(`${m[1]}:${m[2]}`, (seen.get(`${m[1]}:${m[2]}`) ?? 0) + 1);
    });
    const acked = new Set<string>();
    const errors: Record<string, number> = {};
    for (const r of reports) {
      for (const i of r.acked) acked.add(`${r.worker}:${i}`);
      for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + v;
    }
    let lost = 0;
    for (const k of acked) if (!seen.has(k)) lost++;
    let duplicated = 0;
    let unacknowledgedButWritten = 0;
    for (const [k, n] of seen) {
      if (n > 1) duplicated += n - 1;
      if (!acked.has(k)) unacknowledgedButWritten++;
    }
    const contiguous = seqs.every((s, i) => s === i + 1);
    const chainValid = !scan.corrupt && !scan.torn;
    const refused = Object.values(errors).reduce((a, b) => a + b, 0);
    const expected = procs * count;
    const lines = fs.readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
    const pass = lost === 0 && duplicated === 0 && contiguous && chainValid && refused === 0 && seen.size === expected && lines === expected + 1;
    return {
      name: 'append.concurrent',
      ours: acked.size / (wallMs / 1000),
      baseline: null,
      ratio: null,
      unit: 'events/s',
      target: '0 lost, 0 duplicated, seq contiguous, chain valid',
      pass,
      details: {
        processes: procs,
        appends_each: count,
        acknowledged: acked.size,
        lost,
        duplicated,
        refused,
        refused_by_code: JSON.stringify(errors),
        written_but_refused: unacknowledgedButWritten,
        seq_contiguous: contiguous,
        chain_valid: chainValid,
        last_seq: scan.lastSeq,
        wall_ms: wallMs,
        slowest_worker_ms: Math.max(...reports.map((r) => r.ms)),
      },
    };
  },
};

export default appendConcurrent;
