// hook.start (bench.md): the hook command `baton install claude` writes, on one SessionStart(startup) with a
// published pointer and 3 refs to render — all three aspects on, so each measured start also
// opens an episode and freezes its start context (a fresh provider session id each time, all
// in one BATON_SESSION) — against `node -e 0`, both through /bin/sh -c (bench/hook-command.ts),
// interleaved, median of per-pair ratios.
// Target ≤ 1.4.
import { join } from 'node:path';
import { publish } from '../../src/pointer/publish.ts';
import { readState } from '../../src/pointer/state.ts';
import { captureRef } from '../../src/store/refs.ts';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { installedHookCommand, NODE_E0, runShell, timeShell } from '../hook-command.ts';
import { interleaved } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const WRITER: Writer = { surface: 'cli', instanceId: 'cli@bench@hook-start', actor: 'agent' };
const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';

function seedPointer(store: FsStore, id: string, text: string): void {
  store.ensure(id, { title: id, workspace: { cwd: store.home }, writer: WRITER });
  const cur = readState(store.dir(id), id);
  const r = publish(
    store,
    { schema_version: 3, session_id: id, expected_generation: cur.generation, expected_revision: cur.revision, task_id: TASK, target_status: 'CLEAN', pointer_text: text },
    { writer: WRITER },
  );
  if (!r.ok) throw new Error(`bench setup: publish refused: ${JSON.stringify(r)}`);
}

const hookStart: BenchCase = {
  name: 'hook.start',
  async run(ctx): Promise<CaseResult> {
    const home = join(ctx.tmp, 'store');
    const command = installedHookCommand(ctx.root, ctx.tmp, 'SessionStart');
    const store = new FsStore(home);
    const dst = 'bench-hook-start';
    seedPointer(store, dst, 'Goal: ship the hook benchmarks\nNext: measure SessionStart with refs');
    for (let i = 1; i <= 3; i++) {
      const src = `bench-ref-source-${i}`;
      seedPointer(store, src, `Goal: source ${i}\nConclusion: decision ${i} holds; see notes ${'x'.repeat(200)}`);
      captureRef(store, { from: src, into: dst, ttlMs: 7 * 24 * 3600 * 1000, bounds: { maxBytes: 0, maxLines: 0 }, writer: WRITER });
    }
    const env = { BATON_HOME: home, BATON_SESSION: dst, BATON_VERIFY: undefined };
    let n = 0;
    const input = () =>
      JSON.stringify({ session_id: `bench-start-${process.pid}-${n++}`, transcript_path: join(ctx.tmp, 't.jsonl'), cwd: ctx.tmp, hook_event_name: 'SessionStart', source: 'startup' });
    const check = runShell(command, env, { input: input(), stdout: 'pipe' });
    let context = '';
    try {
      context = JSON.parse(check.stdout).hookSpecificOutput.additionalContext;
    } catch {}
    const pointerOk = /^TASK_POINTER_V2\n/.test(context);
    const refsRendered = (context.match(/bench-ref-source-\d/g) ?? []).length > 0;
    const pairs = ctx.quick ? 12 : 40;
    const r = await interleaved(
      pairs,
      () => timeShell(command, env, { input: input() }),
      () => timeShell(NODE_E0, env),
    );
    return {
      name: 'hook.start',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'ms',
      target: 'ratio ≤ 1.4',
      pass: r.ratio <= 1.4 && pointerOk && refsRendered,
      details: { command, node: process.version, pairs, pointer_injected: pointerOk, refs_rendered: refsRendered, context_bytes: Buffer.byteLength(context), ours_ms_median: r.a, node_e0_ms_median: r.b },
    };
  },
};

export default hookStart;
