// context.session50 (bench.md): the bytes of pointer context a scripted Claude Code session
// injects into the model — SessionStart(startup), 50 prompts, a publish after the first prompt
// and every 10 prompts after it, one compaction (PreCompact + SessionStart(compact)) after
// prompt 25 — each event one real `node bin/baton.cjs hook claude` process, all three aspects.
// Ours: one provider session throughout (said once: the full block when something changed,
// one UNCHANGED line when nothing did). Baseline: today's figure — the same script run by the
// build from before "said once" (BEFORE_REV, taken with `git archive` and built in the case's
// temp folder; BATON_BENCH_BEFORE_BIN=<a bin/baton.cjs> names another), where every prompt got
// the full block. For the record, the same script with this build where every event comes from
// a provider session never shown a block (one BATON_SESSION): the full new block on every prompt.
// Without git the case falls back to that as its baseline, and says so. Target: ours ≤ 20%.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { publish } from '../../src/pointer/publish.ts';
import { readState } from '../../src/pointer/state.ts';
import { FsStore, type Writer } from '../../src/store/store.ts';
import { runProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const WRITER: Writer = { surface: 'cli', instanceId: 'cli@bench@context-session50', actor: 'agent' };
const TASK = '5f0c1d0e-8a4b-4c2d-9e1f-0a1b2c3d4e5f';
const PROMPTS = 50;
const COMPACT_AFTER = 25;
/** The last commit before "said once" (issue 17): every prompt injected the full block. */
const BEFORE_REV = '54e1dad7be90fd0fa5fb2ee58793ef8a78e49e82';

/** Builds BEFORE_REV into `dir` and returns its bin, or null when that cannot be done here (no git, no such commit). */
function buildBefore(root: string, dir: string): string | null {
  if (process.env.BATON_BENCH_BEFORE_BIN) return process.env.BATON_BENCH_BEFORE_BIN;
  fs.mkdirSync(dir, { recursive: true });
  const archive = spawnSync('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', root, BEFORE_REV, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (archive.status !== 0 || !fs.existsSync(join(dir, 'scripts', 'build.mjs'))) return null;
  fs.symlinkSync(fs.realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'));
  const build = spawnSync(process.execPath, [join(dir, 'scripts', 'build.mjs')], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  return build.status === 0 && fs.existsSync(join(dir, 'bin', 'baton.cjs')) ? join(dir, 'bin', 'baton.cjs') : null;
}

interface Tally {
  bytes: number;
  full: number;
  short: number;
  fullBytes: number;
  shortBytes: number;
}

/** Runs the script against `bin`; `viewer()` names the provider session of each event. */
function session(bin: string, home: string, named: string, cwd: string, viewer: () => string): Tally {
  const env = { BATON_HOME: home, BATON_SESSION: named, BATON_VERIFY: undefined };
  const store = new FsStore(home);
  const t: Tally = { bytes: 0, full: 0, short: 0, fullBytes: 0, shortBytes: 0 };
  const hook = (fields: Record<string, unknown>): void => {
    const sid = viewer();
    const input = JSON.stringify({ session_id: sid, transcript_path: join(cwd, `${sid}.jsonl`), cwd, ...fields });
    const out = runProcess(process.execPath, [bin, 'hook', 'claude'], env, { input, stdout: 'pipe' }).stdout.trim();
    if (!out) return;
    const ctx = String(JSON.parse(out)?.hookSpecificOutput?.additionalContext ?? '');
    const n = Buffer.byteLength(ctx, 'utf8');
    t.bytes += n;
    if (ctx.includes('\n') && ctx.indexOf('\n') < ctx.length - 1) {
      t.full++;
      t.fullBytes += n;
    } else {
      t.short++;
      t.shortBytes += n;
    }
  };
  let step = 0;
  const republish = (): void => {
    step++;
    const cur = readState(store.dir(named), named);
    const text = `Goal: keep the injected context small over a long session\nNext: step ${step} of the plan, then re-measure`;
    const r = publish(
      store,
      { schema_version: 3, session_id: named, expected_generation: cur.generation, expected_revision: cur.revision, task_id: TASK, target_status: 'CLEAN', pointer_text: text },
      { writer: WRITER },
    );
    if (!r.ok) throw new Error(`bench: publish refused: ${JSON.stringify(r)}`);
  };
  hook({ hook_event_name: 'SessionStart', source: 'startup' });
  for (let i = 1; i <= PROMPTS; i++) {
    hook({ hook_event_name: 'UserPromptSubmit', prompt: `Prompt ${i}: carry on with the plan.` });
    if (i === 1 || i % 10 === 0) republish();
    if (i === COMPACT_AFTER) {
      hook({ hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: null });
      hook({ hook_event_name: 'SessionStart', source: 'compact' });
    }
  }
  return t;
}

const contextSession50: BenchCase = {
  name: 'context.session50',
  async run(ctx): Promise<CaseResult> {
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const beforeBin = buildBefore(ctx.root, join(ctx.tmp, 'before'));
    const one = randomUUID();
    const ours = session(bin, join(ctx.tmp, 'once'), 'session50', ctx.tmp, () => one);
    const today = beforeBin ? session(beforeBin, join(ctx.tmp, 'today'), 'session50', ctx.tmp, () => randomUUID()) : null;
    // For the record only (what the rule alone saves); --quick leaves it out when today's ran.
    const full = ctx.quick && today ? null : session(bin, join(ctx.tmp, 'full'), 'session50', ctx.tmp, () => randomUUID());
    const base = (today ?? full) as Tally;
    const ratio = ours.bytes / base.bytes;
    const mean = (n: number, d: number): number | null => (d ? Math.round(n / d) : null);
    return {
      name: 'context.session50',
      ours: ours.bytes,
      baseline: base.bytes,
      ratio,
      unit: 'bytes',
      target: 'ratio ≤ 0.2',
      pass: ratio <= 0.2,
      details: {
        prompts: PROMPTS,
        publishes: 1 + Math.floor(PROMPTS / 10),
        compactions: 1,
        baseline: today ? `today's: ${process.env.BATON_BENCH_BEFORE_BIN ? beforeBin : `the build of ${BEFORE_REV.slice(0, 7)}`}, the full block on every prompt` : 'this build, the full block on every prompt (git archive unavailable)',
        ours_full_blocks: ours.full,
        ours_unchanged_lines: ours.short,
        ours_mean_full_bytes: mean(ours.fullBytes, ours.full),
        ours_mean_unchanged_bytes: mean(ours.shortBytes, ours.short),
        today_bytes: today?.bytes ?? null,
        today_mean_block_bytes: today ? mean(today.fullBytes, today.full) : null,
        full_every_prompt_bytes: full?.bytes ?? null,
        full_every_prompt_mean_block_bytes: full ? mean(full.fullBytes, full.full) : null,
        ratio_vs_full_every_prompt: full ? Math.round((ours.bytes / full.bytes) * 1000) / 1000 : null,
      },
    };
  },
};

export default contextSession50;
