// hook.prompt (bench.md): wall time of the hook command `baton install claude` writes, handling
// a UserPromptSubmit on a CLEAN pointer — DIRTY write, journal, event appends, the prompt
// archive, the context output; all three aspects on — against the contract floor
// (bench/floor/prompt-floor.ts: the same disk steps in one straight-line script, through a code
// cache) in the same environment (both through /bin/sh -c, as an agent runs them; see
// bench/hook-command.ts), interleaved A B A B, median of the per-pair ratios. Target ≤ 1.10;
// each one's ratio to `node -e 0` is reported.
// Before each measured hook (untimed) the pointer is republished CLEAN in process, so every
// measured prompt does the full CLEAN → DIRTY work; each publish names a new next step, as an
// agent's do (the same text every time is the identical-text streak's rarer path).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { publish } from '../../src/pointer/publish.ts';
import { readState } from '../../src/pointer/state.ts';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { installedHookCommand, NODE_E0, runShell, timeShell } from '../hook-command.ts';
import { CJS_HEAD, CJS_TAIL } from '../../src/hooks/codecache.ts';
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
    const floor = await contractFloor(ctx.root, ctx.tmp, env, input, republish);
    const hookRun = (): number => {
      republish();
      return timeShell(command, env, { input });
    };
    if (!floor.run) {
      return {
        name: 'hook.prompt',
        ours: Number.NaN,
        baseline: null,
        ratio: null,
        unit: 'ms',
        target: 'ratio to the contract floor ≤ 1.10',
        pass: false,
        details: { command, node: process.version, contract_floor_error: floor.error },
      };
    }
    // The target: the hook against the contract floor, interleaved A B A B (bench.md).
    const r = await interleaved(pairs, hookRun, floor.run);
    // For the record: each against `node -e 0`, and the pointer aspect alone.
    const e0 = await interleaved(Math.max(6, pairs >> 1), hookRun, () => timeShell(NODE_E0, env));
    const floorE0 = await interleaved(Math.max(6, pairs >> 1), floor.run, () => timeShell(NODE_E0, env));
    const alone = await interleaved(
      Math.max(6, pairs >> 1),
      () => {
        republish();
        return timeShell(`${command} --aspects pointer`, env, { input });
      },
      () => timeShell(NODE_E0, env),
    );
    return {
      name: 'hook.prompt',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'ms',
      target: 'ratio to the contract floor ≤ 1.10',
      pass: r.ratio <= 1.1 && dirty && contextOk,
      details: {
        command,
        node: process.version,
        pairs,
        clean_to_dirty: dirty,
        context_on_stdout: contextOk,
        ours_ms_median: r.a,
        contract_floor_ms_median: r.b,
        node_e0_ratio: e0.ratio,
        node_e0_ms_median: e0.b,
        contract_floor_ratio: floorE0.ratio,
        pointer_only_ratio: alone.ratio,
      },
    };
  },
};

/**
 * Builds bench/floor/prompt-floor.ts into `outfile` as scripts/build.mjs builds an agent's hook
 * bundle: minified the same way (identifiers too) and written already wrapped as Node's loader
 * wraps a module (CJS_HEAD), which bench/floor/loader.cjs compiles as it is, as the hook's loader
 * does its bundle.
 */
export async function buildContractFloor(root: string, outfile: string): Promise<void> {
  const r = await build({ entryPoints: [join(root, 'bench', 'floor', 'prompt-floor.ts')], bundle: true, platform: 'node', format: 'cjs', write: false, outfile, minifyWhitespace: true, minifySyntax: true, minifyIdentifiers: true, logLevel: 'error' });
  writeFileSync(outfile, CJS_HEAD + r.outputFiles[0].text + CJS_TAIL, 'latin1');
}

/**
 * bench/floor/prompt-floor.ts (every disk step the contract asks of the prompt, in one
 * straight-line function, through a code cache as the hook's loader runs it) built and checked
 * once on the same session: its run, measured as the hook is (the pointer republished CLEAN
 * first, untimed; stdout to /dev/null). The case's baseline (docs/adr/0018, "Fourth pass").
 */
async function contractFloor(root: string, tmp: string, env: Record<string, string | undefined>, input: string, republish: () => void): Promise<{ run?: () => number; error?: string }> {
  try {
    const bundle = join(tmp, 'prompt-floor.cjs');
    await buildContractFloor(root, bundle);
    const command = shellJoin([process.execPath, join(root, 'bench', 'floor', 'loader.cjs'), bundle, join(tmp, 'prompt-floor.v8cache')]);
    // Twice with its output checked: the second run is through the code cache the first wrote.
    for (let i = 0; i < 2; i++) {
      republish();
      const run = runShell(command, env, { input, stdout: 'pipe' });
      if (!/TASK_POINTER_V2/.test(run.stdout)) throw new Error(`no context (exit ${run.code}): ${run.stderr.split('\n')[0]}`);
    }
    return {
      run: () => {
        republish();
        return timeShell(command, env, { input });
      },
    };
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0] };
  }
}

export default hookPrompt;
