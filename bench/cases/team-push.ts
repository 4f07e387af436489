// team.push (team.md, "What is measured"): the first share of N sessions × 100 events into a
// private PostgreSQL (test/pg.ts), through the replicator as shipped in src/team (shareMany:
// many sessions per transaction — rows inserted and locked, owner/epoch checked, durable
// ownership markers, one COPY of the events, the bookkeeping in three pipelined statements),
// in events/s, against a bulk `COPY` of the same rows into a table of the same shape in the
// same cluster and run. Target: ratio ≥ 0.2.
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { startPg } from '../../test/pg.ts';
import { nowMs } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TARGET = 0.2;

const teamPush: BenchCase = {
  name: 'team.push',
  async run(ctx): Promise<CaseResult> {
    const sessions = ctx.quick ? 50 : 1000;
    const perSession = 100;
    const pg = await startPg();
    const store = new FsStore(join(ctx.tmp, 'home'));
    const writer: Writer = { surface: 'cli', instanceId: 'cli@bench@team', actor: 'agent' };
    const ids: string[] = [];
    for (let i = 0; i < sessions; i++) {
      const { id } = store.create({ id: `bench-${i}`, title: `bench ${i}`, workspace: { cwd: ctx.tmp }, writer, leaseMs: 3600_000 });
      store.append(
        id,
        Array.from({ length: perSession - 2 }, (_, j) => ({ type: 'context.appended', surface: 'cli', actor: 'agent' as const, payload: { text: `entry ${j} ${'x'.repeat(200)}` } })),
        writer,
      );
      ids.push(id);
    }
    // The replicator as shipped: dist/team.cjs (built by `npm run bench`).
    const { connect, migrate, shareMany } = createRequire(import.meta.url)(join(ctx.root, 'dist', 'team.cjs')) as typeof import('../../src/team/entry.ts');
    const sql = connect(pg.url, { max: 1 });
    try {
      await migrate(sql);
      const cfg = { url: pg.url, machine: 'bench', joined_at: new Date().toISOString() };
      await sql`insert into baton.machines (name) values (${cfg.machine})`;
      const t = { store, cfg, sql };
      const t0 = nowMs();
      const r = await shareMany(t, ids);
      if (r.refused.length) throw r.refused[0].error;
      const pushed = r.shared.reduce((n, s) => n + s.pushed, 0);
      const oursS = (nowMs() - t0) / 1000;
      // The baseline: the same rows, bulk-loaded with COPY into a table of the same shape.
      await sql`create table bench_events (like baton.events including all)`;
      const rows = await sql`select session, seq, h, encode(line, 'hex') as hex, epoch, origin from baton.events`;
      const text = rows.map((r) => `${r.session}\t${r.seq}\t${r.h}\t\\\\x${r.hex}\t${r.epoch}\t${r.origin}\n`).join('');
      const c0 = nowMs();
      const w = (await sql`copy bench_events (session, seq, h, line, epoch, origin) from stdin`.writable()) as Writable;
      await pipeline(
        (async function* () {
          yield text;
        })(),
        w,
      );
      const copyS = (nowMs() - c0) / 1000;
      const ours = pushed / oursS;
      const baseline = rows.length / copyS;
      return {
        name: 'team.push',
        ours,
        baseline,
        ratio: ours / baseline,
        unit: 'events/s',
        target: `ratio >= ${TARGET}`,
        pass: ours / baseline >= TARGET,
        details: { sessions, events_per_session: perSession, pushed, ours_s: oursS, copy_s: copyS },
      };
    } finally {
      await sql.end({ timeout: 1 });
      pg.destroy();
    }
  },
};

export default teamPush;
