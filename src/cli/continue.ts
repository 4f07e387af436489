// `baton continue ID [--in AGENT] [--budget BYTES] [--print] [--steal] [--workspace DIR] [-- AGENT-ARGS...]`
// (transcripts.md, "Pick and continue"; docs/cli.md; docs/adr/0065): continues a session in an
// agent — the one it last ran in through that agent's own resume, or another one started in the
// session's workspace, bound to it, with the handoff block at its first start. The plan and its
// refusals are src/ops/continue.ts; this file takes the lease as the target's surface, runs the
// agent with the terminal, renews the lease while it runs, releases it at its end and exits
// with its code. `--print` runs and takes nothing.
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import { type ContinuePlan, AGENT_NAMES, continuePlan, continueWriter } from '../ops/continue.ts';
import { existingDir } from '../ops/session.ts';
import { resumeShared } from '../ops/team.ts';
import { parseCount, parseDurationFlag } from './args.ts';
import { type GlobalOptions, openStore, run, warn } from './output.ts';

/** The words after the first `--` of the command line: the agent's own arguments. */
function agentArgsOf(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return end < 0 ? [] : argv.slice(end + 1);
}

function printText(p: ContinuePlan): string {
  const lines = [p.command];
  if (p.block) lines.push('', p.block.endsWith('\n') ? p.block.slice(0, -1) : p.block);
  return lines.join('\n');
}

export function registerContinueCommand(program: Command, globals: () => GlobalOptions): void {
  program
    .command('continue')
    .description(`continue a session in an agent (${AGENT_NAMES.join(', ')}): the last one through its own resume, or --in another with a handoff block`)
    .argument('<id>', 'session id or unambiguous prefix')
    .argument('[agent-args...]', "the agent's own arguments, after --")
    .option('--in <agent>', 'start this agent in the session (a handoff block at its start) instead of resuming the last one')
    .option('--budget <bytes>', 'the handoff block at most this many bytes', '4096')
    .option('--print', 'print the command line and the block; run nothing, take no lease')
    .option('--steal', 'take a lease that expired in another holder')
    .option('--workspace <dir>', "run the agent in this folder instead of the session's workspace")
    .option('--lease <duration>', 'lease length, renewed while the agent runs', '10m')
    .action((idArg: string, operands: string[], o) =>
      run(globals(), async () => {
        const g = globals();
        const agentArgs = agentArgsOf(process.argv);
        if (operands.length > agentArgs.length) fail('USAGE', `unexpected argument ${JSON.stringify(operands[0])}: the agent's own arguments go after --`, { argument: operands[0] });
        const budget = parseCount(o.budget, '--budget');
        const leaseMs = parseDurationFlag(o.lease, '--lease');
        const workspace = o.workspace ? existingDir(o.workspace, 'USAGE', (abs) => `--workspace ${abs} does not exist or is not a directory`) : undefined;
        const store = openStore(g);
        const plan = continuePlan(store.home, idArg, { in: o.in, budget, steal: !!o.steal, workspace, agentArgs });
        if (o.print) return { json: { ok: true, ...plan }, text: printText(plan) };

        // The lease as the target's surface (team mode: a session nobody owns is taken first).
        const writer = continueWriter(plan.agent);
        await resumeShared(store, plan.session, writer, { leaseMs, steal: !!o.steal, workspace });
        let code = 1;
        try {
          code = await runAgent(
            plan,
            () => {
              try {
                store.renew(plan.session, writer, leaseMs);
              } catch (e) {
                warn(g, (e as { code?: string }).code ?? 'INTERNAL', `could not renew the lease on ${plan.session}: ${(e as Error).message}`);
              }
            },
            leaseMs,
          );
        } catch (e) {
          fail('CN001', `could not start ${plan.program}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; install it with ${plan.install}`, { agent: plan.agent, install: plan.install });
        } finally {
          try {
            store.release(plan.session, writer);
          } catch (e) {
            warn(g, (e as { code?: string }).code ?? 'INTERNAL', `could not release the lease on ${plan.session}: ${(e as Error).message}`);
          }
        }
        process.exitCode = code;
        return { json: null, printed: true };
      }),
    );
}

/** Runs the agent on this terminal; resolves with its exit code (128 + signal when killed). */
function runAgent(plan: ContinuePlan, renew: () => void, leaseMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(plan.program, plan.argv, { cwd: plan.cwd, env: { ...process.env, ...plan.env }, stdio: 'inherit' });
    // The terminal's Ctrl+C reaches the agent itself (same process group); continue waits for it.
    const ignore = () => {};
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
    const onTerm = forward('SIGTERM');
    const onHup = forward('SIGHUP');
    process.on('SIGINT', ignore);
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onHup);
    const timer = setInterval(renew, Math.max(1000, Math.floor(leaseMs / 2)));
    const done = () => {
      clearInterval(timer);
      process.off('SIGINT', ignore);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
    };
    child.on('error', (e) => {
      done();
      reject(e);
    });
    child.on('close', (code, signal) => {
      done();
      resolve(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1));
    });
  });
}
