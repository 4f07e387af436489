// handoff.start (transcripts.md, "What is measured"): the hook command `baton install claude`
// writes, on one SessionStart(startup) that carries a handoff (BATON_HANDOFF, as `baton continue
// --in claude` sets it) into a session of 100,000 transcript items with a published pointer —
// all aspects on, so each start also opens an episode, renders the pointer block, claims and
// renders the handoff block from the recent projection (never a fold of the log) and freezes
// it — against `node -e 0`, both through /bin/sh -c, interleaved, median of per-pair ratios.
// Each measured start has its own handoff id and provider session (a handoff is shown once).
// Target ≤ 1.5.
import { join } from 'node:path';
import type { EventInput } from '../../src/core/events.ts';
import { formatHandoffSpec } from '../../src/hooks/handoff.ts';
import { publish } from '../../src/pointer/publish.ts';
import { readState } from '../../src/pointer/state.ts';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { ensureDir, writeFileAtomic } from '../../src/store/fsutil.ts';
import { rebuildRecent } from '../../src/transcripts/capture.ts';
import { NODE_E0, installedHookCommand, runShell, timeShell } from '../hook-command.ts';
import { interleaved } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const WRITER: Writer = { surface: 'hook:claude', instanceId: 'hook:claude:bench-handoff', actor: 'agent' };
const ITEMS = 100_000;
const BATCH = 5_000;

function seedSession(store: FsStore, id: string): void {
  store.ensure(id, { title: id, workspace: { cwd: store.home }, writer: WRITER });
  const cur = readState(store.dir(id), id);
  const r = publish(
    store,
    { schema_version: 3, session_id: id, expected_generation: cur.generation, expected_revision: cur.revision, task_id: '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f', target_status: 'CLEAN', pointer_text: 'Goal: measure the handoff\nNext: start in another agent' },
    { writer: WRITER },
  );
  if (!r.ok) throw new Error(`bench setup: publish refused: ${JSON.stringify(r)}`);
  const t0 = Date.parse('2026-12-01T00:00:00Z');
  for (let i = 0; i < ITEMS; i += BATCH) {
    const inputs: EventInput[] = [];
    for (let j = i; j < Math.min(ITEMS, i + BATCH); j++) {
      const role = j % 3 === 0 ? 'user' : 'assistant';
      const kind = j % 3 === 2 ? 'tool_call' : 'message';
      const payload: Record<string, unknown> = {
        agent: 'codex',
        agent_session: 'bench-codex-session',
        item_id: `item-${j}`,
        at: new Date(t0 + j * 1000).toISOString(),
        role,
        kind,
        text: `${role === 'user' ? 'Please' : 'Done:'} step ${j} of the long task, ${'with some detail '.repeat(8)}`,
        ...(kind === 'tool_call' ? { files: [`src/module-${j % 500}.ts`] } : {}),
      };
      inputs.push({ type: 'transcript.item', surface: WRITER.surface, actor: role === 'user' ? 'user' : 'agent', payload });
    }
    store.locked(id, () => store.appendUnderMutex(id, inputs, WRITER));
  }
  // The projection capture keeps after every append (built once here from the log).
  ensureDir(join(store.dir(id), 'transcripts'));
  writeFileAtomic(join(store.dir(id), 'transcripts', 'recent.json'), `${JSON.stringify(rebuildRecent(store.dir(id)))}\n`);
}

const handoffStart: BenchCase = {
  name: 'handoff.start',
  async run(ctx): Promise<CaseResult> {
    const home = join(ctx.tmp, 'store');
    const command = installedHookCommand(ctx.root, ctx.tmp, 'SessionStart');
    const store = new FsStore(home);
    const id = 'bench-handoff-start';
    seedSession(store, id);
    let n = 0;
    const next = () => {
      n++;
      const env = {
        BATON_HOME: home,
        BATON_SESSION: id,
        BATON_VERIFY: undefined,
        BATON_HANDOFF: formatHandoffSpec({ id: `h${String(n).padStart(7, '0')}${process.pid}`.slice(0, 32), from: 'codex', to: 'claude', budget: 4096, episode: null }),
      };
      const input = JSON.stringify({ session_id: `bench-handoff-${process.pid}-${n}`, transcript_path: join(ctx.tmp, 't.jsonl'), cwd: ctx.tmp, hook_event_name: 'SessionStart', source: 'startup' });
      return { env, input };
    };
    // The first start also brings the hook's caches (episodes, the log's verified tail) up to the log.
    const first = next();
    const check = runShell(command, first.env, { input: first.input, stdout: 'pipe' });
    let context = '';
    try {
      context = JSON.parse(check.stdout).hookSpecificOutput.additionalContext;
    } catch {}
    const pointerOk = /^TASK_POINTER_V2\n/.test(context);
    const handoffOk = /\nHANDOFF_BEGIN\n[\s\S]*\nITEMS=100000\n[\s\S]*\nCONCLUSION seq=\d+ [\s\S]*\nHANDOFF_END\n$/.test(context);
    const pairs = ctx.quick ? 12 : 40;
    const r = await interleaved(
      pairs,
      () => {
        const s = next();
        return timeShell(command, s.env, { input: s.input });
      },
      () => timeShell(NODE_E0, first.env),
    );
    return {
      name: 'handoff.start',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'ms',
      target: 'ratio ≤ 1.5',
      pass: r.ratio <= 1.5 && pointerOk && handoffOk,
      details: { command, node: process.version, pairs, items: ITEMS, pointer_injected: pointerOk, handoff_injected: handoffOk, context_bytes: Buffer.byteLength(context), ours_ms_median: r.a, node_e0_ms_median: r.b },
    };
  },
};

export default handoffStart;
