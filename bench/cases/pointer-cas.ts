// pointer.cas (bench.md): 8 processes × 200 publish attempts (--quick: 8 × 25) on one
// pointer, each re-reading state.json on STALE; worker 0 clears now and then so generations
// change under the others. Pass: final revision = initial + successes, every success's
// expected (generation, revision) distinct, one pointer event per success, no error.
// Reported: successes/s. The workers are this file run again with BATON_BENCH_POINTER_CAS=1
// (loaded first, started together by a "go" line on stdin, so start-up is not measured).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publish } from '../../src/pointer/publish.ts';
import { readState } from '../../src/pointer/state.ts';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { nowMs, startRacer } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';
const SESSION = 'pointer-cas-bench';
const WORKER_ENV = 'BATON_BENCH_POINTER_CAS';
const CLEAR_EVERY = 50;

interface WorkerSummary {
  successes: [string, number][];
  stale: number;
  errors: Record<string, number>;
  ms: number;
}

function workerMain(): void {
  const [home, id, w, attempts] = process.argv.slice(2);
  const store = new FsStore(home);
  const writer: Writer = { surface: 'cli', instanceId: `cli@bench@cas${w}`, actor: 'agent' };
  process.stdout.write('ready\n');
  process.stdin.once('data', () => {
    const t0 = nowMs();
    let cur = readState(store.dir(id), id);
    const successes: [string, number][] = [];
    const errors: Record<string, number> = {};
    let stale = 0;
    for (let i = 0; i < Number(attempts); i++) {
      const clear = w === '0' && i % CLEAR_EVERY === CLEAR_EVERY - 1;
      const r = publish(
        store,
        {
          schema_version: 3,
          session_id: id,
          expected_generation: cur.generation,
          expected_revision: cur.revision,
          task_id: clear ? null : TASK,
          target_status: clear ? 'CLEARED' : 'CLEAN',
          pointer_text: clear ? null : `Goal: bench\nNext: worker ${w} attempt ${i}`,
        },
        { writer },
      );
      if (r.ok) {
        successes.push([cur.generation, cur.revision]);
        cur = readState(store.dir(id), id);
      } else if (r.error === 'STALE_GENERATION' || r.error === 'STALE_REVISION') {
        stale++;
        cur = readState(store.dir(id), id);
      } else {
        errors[r.error] = (errors[r.error] ?? 0) + 1;
      }
    }
    const summary: WorkerSummary = { successes, stale, errors, ms: nowMs() - t0 };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    process.stdin.destroy();
  });
}

const pointerCas: BenchCase = {
  name: 'pointer.cas',
  async run(ctx): Promise<CaseResult> {
    const processes = 8;
    const attempts = ctx.quick ? 25 : 200;
    const home = join(ctx.tmp, 'home');
    const store = new FsStore(home);
    const writer: Writer = { surface: 'cli', instanceId: 'cli@bench@cas-seed', actor: 'agent' };
    const seeded = publish(
      store,
      { schema_version: 3, session_id: SESSION, expected_generation: 'ABSENT', expected_revision: 0, task_id: TASK, target_status: 'CLEAN', pointer_text: 'Goal: bench' },
      { writer, cwd: ctx.tmp },
    );
    if (!seeded.ok) throw new Error(`seeding the pointer failed: ${JSON.stringify(seeded)}`);
    const initial = seeded.revision;
    const eventsBefore = store.readEvents(SESSION).filter((e) => e.type.startsWith('pointer.')).length;

    const self = fileURLToPath(import.meta.url);
    const workers = Array.from({ length: processes }, (_, w) =>
      startRacer<WorkerSummary>(`pointer.cas worker ${w}`, ['--import', 'tsx', self, home, SESSION, String(w), String(attempts)], {
        cwd: ctx.root,
        env: { ...process.env, [WORKER_ENV]: '1' },
      }),
    );
    await Promise.all(workers.map((w) => w.ready));
    const t0 = nowMs();
    for (const w of workers) w.go();
    const summaries = await Promise.all(workers.map((w) => w.done));
    const seconds = (nowMs() - t0) / 1000;

    const successes = summaries.flatMap((s) => s.successes);
    const stale = summaries.reduce((n, s) => n + s.stale, 0);
    const errors: Record<string, number> = {};
    for (const s of summaries) for (const [k, v] of Object.entries(s.errors)) errors[k] = (errors[k] ?? 0) + v;
    const final = readState(store.dir(SESSION), SESSION);
    const distinct = new Set(successes.map(([g, r]) => `${g}/${r}`)).size;
    const pointerEvents = store.readEvents(SESSION).filter((e) => e.type.startsWith('pointer.')).length - eventsBefore;
    const noLostUpdate = final.revision === initial + successes.length;
    const pass = noLostUpdate && distinct === successes.length && pointerEvents === successes.length && Object.keys(errors).length === 0;
    return {
      name: 'pointer.cas',
      ours: successes.length / seconds,
      baseline: null,
      ratio: null,
      unit: 'successes/s',
      target: 'final revision = initial + successes; every success expected (gen, rev) distinct; no lost update',
      pass,
      details: {
        processes,
        attempts_per_process: attempts,
        attempts: processes * attempts,
        successes: successes.length,
        stale,
        errors,
        initial_revision: initial,
        final_revision: final.revision,
        distinct_expectations: distinct,
        pointer_events: pointerEvents,
        seconds,
        attempts_per_second: (processes * attempts) / seconds,
        worker_ms_max: Math.max(...summaries.map((s) => s.ms)),
      },
    };
  },
};

export default pointerCas;

if (process.env[WORKER_ENV] === '1' && process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) workerMain();
