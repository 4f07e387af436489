// hook.prompt (bench.md): wall time of the hook command `baton install claude` writes, handling
// a UserPromptSubmit on a CLEAN pointer — DIRTY write, journal, event appends, the prompt
// archive, the context output; all three aspects on — against `node -e 0` in the same
// environment (both through /bin/sh -c, as an agent runs them; see bench/hook-command.ts),
// interleaved A B A B, median of the per-pair ratios. Target ≤ 1.3.
// Before each measured hook (untimed) the pointer is republished CLEAN in process, so every
// measured prompt does the full CLEAN → DIRTY work; each publish names a new next step, as an
// agent's do (the same text every time is the identical-text streak's rarer path).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { build } from 'esbuild';
import { publish } from '../../src/pointer/publish.ts';
import { readState } from '../../src/pointer/state.ts';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { installedHookCommand, NODE_E0, runShell, timeShell } from '../hook-command.ts';
import { shellJoin } from '../../src/hooks/shell.ts';
import { interleaved } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';
const WRITER: Writer = { surface: 'cli', instanceId: 'cli@bench@hook-prompt', actor: 'agent' };

export function makeClean(store: FsStore, id: string, text: string): void {
  const cur = readState(store.dir(id), id);
  if (cur.status === 'CLEAN') return;
  const r = publish(
    store,
    { schema_version: 3, session_id: id, expected_generation: cur.generation, expected_revision: cur.revision, task_id: TASK, target_status: 'CLEAN', pointer_text: text },
    { writer: WRITER },
  );
  if (!r.ok) throw new Error(`bench setup: publish refused: ${JSON.stringify(r)}`);
}

const hookPrompt: BenchCase = {
  name: 'hook.prompt',
  async run(ctx): Promise<CaseResult> {
    const home = join(ctx.tmp, 'store');
    const command = installedHookCommand(ctx.root, ctx.tmp, 'UserPromptSubmit');
    const env = { BATON_HOME: home, BATON_SESSION: undefined, BATON_VERIFY: undefined };
    const sid = randomUUID();
    const base = { session_id: sid, transcript_path: join(ctx.tmp, 't.jsonl'), cwd: ctx.tmp };
    // The session, its open episode (so the prompt is attributed), and a CLEAN pointer.
    runShell(command, env, { input: JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' }) });
    const store = new FsStore(home);
    let step = 0;
    const republish = (): void => makeClean(store, sid, `Goal: measure the prompt hook\nNext: step ${++step}, keep it near node -e 0`);
    republish();
    const input = JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'Add retries with backoff to the upload client, then cover them with a test.' });
    const check = runShell(command, env, { input, stdout: 'pipe' });
    const dirty = readState(store.dir(sid), sid).status === 'DIRTY';
    const contextOk = /TASK_POINTER_V2/.test(check.stdout);
    const pairs = ctx.quick ? 12 : 40;
    const r = await interleaved(
      pairs,
      () => {
        republish();
        return timeShell(command, env, { input });
      },
      () => timeShell(NODE_E0, env),
    );
    // For the record: the same prompt with the pointer aspect alone (what session + prompt add).
    const alone = await interleaved(
      Math.max(6, pairs >> 1),
      () => {
        republish();
        return timeShell(`${command} --aspects pointer`, env, { input });
      },
      () => timeShell(NODE_E0, env),
    );
    const floor = await contractFloor(ctx.root, ctx.tmp, env, input, Math.max(6, pairs >> 1), republish);
    return {
      name: 'hook.prompt',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'ms',
      target: 'ratio ≤ 1.3',
      pass: r.ratio <= 1.3 && dirty && contextOk,
      details: { command, node: process.version, pairs, clean_to_dirty: dirty, context_on_stdout: contextOk, ours_ms_median: r.a, node_e0_ms_median: r.b, pointer_only_ratio: alone.ratio, ...floor },
    };
  },
};

/**
 * The same prompt done by bench/floor/prompt-floor.ts (every disk step of the hook in one
 * straight-line function, through a code cache) on the same session, measured the same way,
 * against `node -e 0`: how much of the ratio the work itself takes (docs/adr/0018, "Fourth
 * pass"). Reported, not a target; a floor that cannot run says why instead.
 */
async function contractFloor(
  root: string,
  tmp: string,
  env: Record<string, string | undefined>,
  input: string,
  pairs: number,
  republish: () => void,
): Promise<Record<string, unknown>> {
  try {
    const bundle = join(tmp, 'prompt-floor.cjs');
    await build({ entryPoints: [join(root, 'bench', 'floor', 'prompt-floor.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, minifyWhitespace: true, minifySyntax: true, logLevel: 'error' });
    const command = shellJoin([process.execPath, join(root, 'bench', 'floor', 'loader.cjs'), bundle, join(tmp, 'prompt-floor.v8cache')]);
    // As the hook is measured: the pointer republished CLEAN in process (untimed), then the run.
    const once = (): number => {
      republish();
      const run = runShell(command, env, { input, stdout: 'pipe' });
      if (!/TASK_POINTER_V2/.test(run.stdout)) throw new Error(`no context (exit ${run.code}): ${run.stderr.split('\n')[0]}`);
      return run.ms;
    };
    once();
    once();
    const r = await interleaved(pairs, once, () => timeShell(NODE_E0, env));
    return { contract_floor_ratio: r.ratio, contract_floor_ms_median: r.a };
  } catch (e) {
    return { contract_floor_ratio: null, contract_floor_error: (e as Error).message.split('\n')[0] };
  }
}

export default hookPrompt;
