// The hook process: `baton hook PROVIDER [--aspects a,b] [--home DIR]` with the payload on
// stdin. Reads stdin, runs the dispatcher, writes stdout/stderr, sets the exit code. The
// bundle entry (entry.ts) and the CLI route (`baton --home X hook ...`) both call hookMain.
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { writeFd } from '../core/stdio.ts';
import { type BoundedRead, readFdBounded } from '../store/bounded-read.ts';
import { resolveHome } from '../store/home.ts';
import { takeMutexByCreate } from '../store/mutex.ts';
import { DEFERRED_ENV, type HookInvocation, parseAspects, runHook } from './dispatch.ts';
import type { HookArgs } from './args.ts';
import { shellJoin } from './shell.ts';

/** The largest hook payload read from stdin (docs/cli.md, "Input limits"); past it the hook refuses, exit 0. */
export const HOOK_MAX_INPUT_BYTES = 8 * 1024 * 1024;

/** The payload of a deferred capture, in its environment (an environment string is bounded: larger payloads are not deferred). */
const DEFERRED_PAYLOAD_ENV = 'BATON_CAPTURE_PAYLOAD';
const DEFER_MAX_PAYLOAD = 64 * 1024;

/**
 * Starts the end event's capture again in a detached process (its own session, no stdio), for
 * an agent that writes its transcript only as it exits: that run waits until the agent has let
 * go of it (dispatch.ts, DEFER_MAX_MS at most) and captures with the transcript aspect alone.
 * The agent is not kept waiting; a failure to start is one stderr line.
 */
function deferCapture(args: HookArgs, home: string, payload: string): void {
  try {
    const { spawn } = require('node:child_process') as typeof import('node:child_process');
    const argv = [batonBinPath(), 'hook', args.provider, '--aspects', 'transcript', '--home', home];
    const env = { ...process.env, [DEFERRED_ENV]: '1', [DEFERRED_PAYLOAD_ENV]: payload };
    spawn(process.execPath, argv, { detached: true, stdio: 'ignore', env }).unref();
  } catch (e) {
    writeFd(2, `baton: hook transcript: TR005 cannot start the deferred capture: ${(e as Error).message.split('\n')[0]}\n`);
  }
}

/** Reads stdin synchronously, at most HOOK_MAX_INPUT_BYTES + 1 bytes (a pipe may report EAGAIN: wait and retry). */
export function readStdinSync(limit = HOOK_MAX_INPUT_BYTES): BoundedRead {
  // fstat, not process.stdin: the stdin getter builds a stream and loads its modules. A
  // terminal (a character device, by its mode bits: isCharacterDevice() is one more function
  // for the hook to compile) gives no payload.
  if ((fs.fstatSync(0).mode & fs.constants.S_IFMT) === fs.constants.S_IFCHR) return { data: Buffer.alloc(0), over: false };
  return readFdBounded(0, limit);
}

/** bin/baton.cjs of the running baton, absolute (symlinks resolved). */
export function batonBinPath(): string {
  // Node resolved the main module's real path already: reuse it (a JS realpath walk costs ~0.4 ms).
  const main = typeof require !== 'undefined' ? require.main?.filename : undefined;
  if (main?.endsWith('baton.cjs')) return main;
  const arg = process.argv[1];
  if (arg) {
    try {
      const real = fs.realpathSync.native(arg);
      if (real.endsWith('baton.cjs')) return real;
    } catch {}
  }
  if (typeof __dirname !== 'undefined') return join(__dirname, '..', 'bin', 'baton.cjs');
  return arg ?? 'baton';
}

/** The exact command line an agent pastes to publish a pointer into this store. */
export function publisherCommandFor(home: string): string {
  return shellJoin([process.execPath, batonBinPath(), '--home', home, 'pointer', 'publish']);
}

/**
 * The hook process. Whatever happens it never breaks the agent: a failure anywhere is one
 * stderr line (never a stack, never the bundle's source) and exit 0, except the codes the
 * dispatcher itself decides (pointer.md's one blocking case).
 */
export function hookMain(args: HookArgs, transcript?: HookInvocation['transcript']): { stored: boolean; kind?: string } {
  // One event, then exit: a parked mutex token would never be used twice.
  takeMutexByCreate();
  try {
    return runHookProcess(args, transcript);
  } catch (e) {
    const code = (e as { code?: unknown })?.code;
    const message = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    try {
      writeFd(2, `baton: hook: ${typeof code === 'string' ? code : 'INTERNAL'} ${message}\n`);
    } catch {}
    process.exitCode = 0;
    return { stored: false };
  }
}

/** Runs one hook event; `stored`: the event (of `kind`) reached the store (not refused at the edge, not a BATON_VERIFY dry run). */
function runHookProcess(args: HookArgs, transcript?: HookInvocation['transcript']): { stored: boolean; kind?: string } {
  let input: BoundedRead;
  // The deferred capture (below) gets its payload in its environment: its stdin is /dev/null.
  const deferred = process.env[DEFERRED_ENV] === '1' ? process.env[DEFERRED_PAYLOAD_ENV] : undefined;
  try {
    input = deferred !== undefined ? { data: Buffer.from(deferred, 'utf8'), over: false } : readStdinSync();
  } catch (e) {
    writeFd(2, `baton: hook: HK001 cannot read stdin: ${(e as Error).message}\n`);
    return { stored: false };
  }
  if (input.over) {
    writeFd(2, `baton: hook: INPUT_TOO_LARGE the payload on stdin is over the ${HOOK_MAX_INPUT_BYTES}-byte limit; nothing done\n`);
    return { stored: false };
  }
  const home = resolveHome(args.home);
  const { aspects, unknown } = parseAspects(args.aspects);
  if (unknown.length) writeFd(2, `baton: hook: USAGE unknown aspect(s) ${unknown.join(', ')} ignored (known: session, prompt, pointer, transcript)\n`);
  const out = runHook({
    provider: args.provider,
    aspects,
    input: input.data.toString('utf8'),
    env: process.env,
    home,
    now: new Date(),
    publisherCommand: publisherCommandFor(home),
    cwd: () => process.cwd(),
    transcript,
  });
  if (out.defer && input.data.length <= DEFER_MAX_PAYLOAD) deferCapture(args, home, input.data.toString('utf8'));
  if (out.stdout) writeFd(1, out.stdout);
  if (out.stderr.length) writeFd(2, `${out.stderr.join('\n')}\n`);
  process.exitCode = out.exitCode;
  return { stored: out.stored, kind: out.kind };
}
