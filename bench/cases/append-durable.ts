// append.durable (bench.md): events/s through the store API as shipped (dist/lib.cjs, built
// by `npm run bench`) — FsStore.append, one event per call, each fsync'd, chain and mutex
// included — against raw writeSync+fsyncSync of lines of the same bytes on an open descriptor
// (the disk's floor), in interleaved batches. Target ≥ 0.6.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type EventInput, encodeEvent } from '../../src/core/events.ts';
import type { FsStore as FsStoreClass, Writer } from '../../src/store/store.ts';
import { interleaved, median, nowMs, prng, randInt, randText } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TARGET = 0.6;

const appendDurable: BenchCase = {
  name: 'append.durable',
  async run(ctx): Promise<CaseResult> {
    // Short batches, many pairs: the shared disk's fsync cost drifts, and a pair should see one condition.
    const batch = ctx.quick ? 10 : 25;
    const pairs = ctx.quick ? 15 : 41;
    const home = join(ctx.tmp, 'home');
    const { FsStore } = createRequire(import.meta.url)(join(ctx.root, 'dist', 'lib.cjs')) as { FsStore: typeof FsStoreClass };
    const store = new FsStore(home);
    const writer: Writer = { surface: 'cli', instanceId: 'cli@bench@append', actor: 'agent' };
    const { id } = store.create({ title: 'append bench', workspace: { cwd: ctx.tmp }, writer, leaseMs: 6 * 3600_000 });

    // The same inputs for both sides: context entries of 80..400 bytes of text.
    const rng = prng(0xa99e7d);
    const inputs: EventInput[] = Array.from({ length: batch }, () => ({
      type: 'context.appended',
      surface: 'cli',
      actor: 'agent',
      payload: { text: randText(rng, randInt(rng, 80, 400)) },
    }));
    // Raw lines of the same size as the store's (seq width differs by a byte or two at most).
    let prevH = '';
    const ts = new Date().toISOString();
    const lines = inputs.map((e, i) => {
      const enc = encodeEvent(1000 + i, ts, e, prevH);
      prevH = enc.h;
      return Buffer.from(enc.line);
    });
    const rawPath = join(ctx.tmp, 'raw.jsonl');
    const fd = fs.openSync(rawPath, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o600);

    const ours = (): number => {
      const t0 = nowMs();
      for (const e of inputs) store.append(id, e, writer);
      return batch / ((nowMs() - t0) / 1000);
    };
    const raw = (): number => {
      const t0 = nowMs();
      for (const l of lines) {
        fs.writeSync(fd, l);
        fs.fsyncSync(fd);
      }
      return batch / ((nowMs() - t0) / 1000);
    };
    try {
      // Warm-up: page cache, JIT, the log's verified tail.
      ours();
      raw();
      const r = await interleaved(pairs, ours, raw);
      const bytes = lines.reduce((n, l) => n + l.length, 0) / lines.length;
      return {
        name: 'append.durable',
        ours: r.a,
        baseline: r.b,
        ratio: r.ratio,
        unit: 'events/s',
        target: `ratio >= ${TARGET}`,
        pass: r.ratio >= TARGET,
        details: {
          ours_ms_per_event: 1000 / r.a,
          baseline_ms_per_event: 1000 / r.b,
          overhead_ms_per_event: 1000 / r.a - 1000 / r.b,
          batch,
          pairs,
          avg_line_bytes: Math.round(bytes),
          ratio_min: Math.min(...r.ratios),
          ratio_max: Math.max(...r.ratios),
          ratio_median: median(r.ratios),
        },
      };
    } finally {
      fs.closeSync(fd);
    }
  },
};

export default appendDurable;
