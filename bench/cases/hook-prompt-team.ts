// hook.prompt.team (team.md, "What is measured": the hook path's figures unchanged with team
// mode on): the hook.prompt case's prompt hook, as `baton install claude` writes it, in a home
// that has joined a team (a private PostgreSQL, test/pg.ts) on a session it shares and owns —
// against the same hook on the same kind of session in a home not in a team, interleaved
// A B A B, median of the per-pair ratios. What team mode adds to a hook is one stat of the
// ownership marker (adr/0016); the hook never talks to the database. Target ≤ 1.05 (noise).
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { readState } from '../../src/pointer/state.ts';
import { FsStore } from '../../src/store/store.ts';
import { startPg } from '../../test/pg.ts';
import { installedHookCommand, runShell, timeShell } from '../hook-command.ts';
import { interleaved } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';
import { makeClean } from './hook-prompt.ts';

const TARGET = 1.05;

const hookPromptTeam: BenchCase = {
  name: 'hook.prompt.team',
  async run(ctx): Promise<CaseResult> {
    const pg = await startPg();
    try {
      const command = installedHookCommand(ctx.root, ctx.tmp, 'UserPromptSubmit');
      const bin = join(ctx.root, 'bin', 'baton.cjs');
      const prompt = 'Add retries with backoff to the upload client, then cover them with a test.';
      const setup = (name: string, joined: boolean) => {
        const home = join(ctx.tmp, name);
        const env = { BATON_HOME: home, BATON_SESSION: undefined, BATON_VERIFY: undefined };
        const sid = randomUUID();
        const base = { session_id: sid, transcript_path: join(ctx.tmp, `${name}.jsonl`), cwd: ctx.tmp };
        runShell(command, env, { input: JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' }) });
        if (joined) {
          for (const args of [['team', 'join', pg.url, '--name', 'bench'], ['team', 'share', sid]]) {
            const r = spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, BATON_HOME: home }, encoding: 'utf8' });
            if (r.status !== 0) throw new Error(`bench setup: baton ${args.join(' ')}: ${r.stderr}`);
          }
        }
        const store = new FsStore(home);
        let step = 0;
        const republish = (): void => makeClean(store, sid, `Goal: measure the prompt hook\nNext: step ${++step}, keep it near node -e 0`);
        republish();
        return { env, sid, store, republish, input: JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt }) };
      };
      const team = setup('team-home', true);
      const solo = setup('solo-home', false);
      // Both hooks do the full work: the shared session's hook is the owner's, so it writes.
      const checks = [team, solo].map((h) => {
        const out = runShell(command, h.env, { input: h.input, stdout: 'pipe' });
        return readState(h.store.dir(h.sid), h.sid).status === 'DIRTY' && /TASK_POINTER_V2/.test(out.stdout);
      });
      const pairs = ctx.quick ? 12 : 40;
      const r = await interleaved(
        pairs,
        () => {
          team.republish();
          return timeShell(command, team.env, { input: team.input });
        },
        () => {
          solo.republish();
          return timeShell(command, solo.env, { input: solo.input });
        },
      );
      const ok = checks.every(Boolean);
      return {
        name: 'hook.prompt.team',
        ours: r.a,
        baseline: r.b,
        ratio: r.ratio,
        unit: 'ms',
        target: `ratio ≤ ${TARGET}`,
        pass: r.ratio <= TARGET && ok,
        details: { command, pairs, both_hooks_wrote: ok, team_ms_median: r.a, solo_ms_median: r.b },
      };
    } finally {
      pg.destroy();
    }
  },
};

export default hookPromptTeam;
