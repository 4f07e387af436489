// What the hook cases measure (bench.md, "Honest baselines"): the command exactly as
// `baton install claude` writes it into the agent's settings, run the way an agent runs a
// hook command (`/bin/sh -c COMMAND`, the payload on stdin), against `node -e 0` run the same
// way, both in the user's environment (lib.ts, userEnv).
import * as fs from 'node:fs';
import { join } from 'node:path';
import { shellJoin } from '../src/hooks/shell.ts';
import { type ProcessOptions, type ProcessRun, runProcess } from './lib.ts';

const SHELL = '/bin/sh';

/**
 * Runs `baton install claude` (user scope) with HOME in a fresh folder under tmp and returns
 * the command it wrote for `event` (the same for every event today).
 */
export function installedHookCommand(root: string, tmp: string, event: string): string {
  const userHome = fs.mkdtempSync(join(tmp, 'user-home-'));
  // Installed for the default store (no BATON_HOME, no XDG_STATE_HOME), so the entry names no
  // store of its own (install bakes --home into an entry for any other store) and each run's
  // BATON_HOME decides where it writes, as for a user whose store is the default.
  runProcess(process.execPath, [join(root, 'bin', 'baton.cjs'), 'install', 'claude', '--json'], { HOME: userHome, BATON_HOME: undefined, XDG_STATE_HOME: undefined });
  const settingsText = fs.readFileSync(join(userHome, '.claude', 'settings.json'), 'utf8');
  if (settingsText.includes('--home')) throw new Error('bench setup: the installed entry names a store of its own');
  const settings = JSON.parse(fs.readFileSync(join(userHome, '.claude', 'settings.json'), 'utf8'));
  const command = settings?.hooks?.[event]?.[0]?.hooks?.[0]?.command;
  if (typeof command !== 'string') throw new Error(`bench setup: baton install claude wrote no ${event} command`);
  return command;
}

/** `node -e 0` with the node that runs the bench, as a shell command. */
export const NODE_E0 = shellJoin([process.execPath, '-e', '0']);

/** One run of a shell command line as an agent runs it. */
export function runShell(command: string, env: Record<string, string | undefined>, opts: ProcessOptions = {}): ProcessRun {
  return runProcess(SHELL, ['-c', command], env, opts);
}

export function timeShell(command: string, env: Record<string, string | undefined>, opts: ProcessOptions = {}): number {
  return runShell(command, env, opts).ms;
}
