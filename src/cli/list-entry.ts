// The lean entry of `baton session list` (dist/list.cjs): what a resume picker runs, so it
// loads only the index and the list command, not commander and every command group.
// bin/baton.cjs routes here any argv holding `session list`; this entry parses the few
// flags list knows (--home, --json, --quiet, --all, --cwd, --state, --limit) and hands
// anything else (--help, an unknown flag, a missing value, a flag between `session` and
// `list`) to the full command line unchanged, before doing any work. Output, exit codes and
// errors are those of the full command (the same listCommand through the same run()).
// BATON_LIST_LEAN=0 always takes the full path (tests compare the two).
import type { GlobalOptions } from './output.ts';
import { run } from './output.ts';
import { type ListOptions, listCommand } from './session-list.ts';

const GLOBAL_FLAGS = new Set(['--json', '--quiet']);
const GLOBAL_VALUES = new Set(['--home']);
const LIST_FLAGS = new Set(['--json', '--quiet', '--all']);
const LIST_VALUES = new Set(['--home', '--cwd', '--state', '--limit']);

export interface LeanArgs {
  globals: GlobalOptions;
  list: ListOptions;
}

/**
 * Parses `[globals] session list [options]` (pure). Null when the argv is anything else or
 * anything the full command line must judge (help, unknown flags, values that look like flags).
 */
export function parseListArgv(args: readonly string[]): LeanArgs | null {
  const globals: GlobalOptions = {};
  const list: ListOptions = {};
  const set = (name: string, value: string | true): void => {
    if (name === '--home') globals.home = value as string;
    else if (name === '--json') globals.json = true;
    else if (name === '--quiet') globals.quiet = true;
    else if (name === '--all') list.all = true;
    else if (name === '--cwd') list.cwd = value as string;
    else if (name === '--state') list.state = value as string;
    else if (name === '--limit') list.limit = value as string;
  };
  let i = 0;
  let phase: 'globals' | 'list' = 'globals';
  while (i < args.length) {
    const a = args[i];
    if (phase === 'globals' && a === 'session') {
      if (args[i + 1] !== 'list') return null;
      phase = 'list';
      i += 2;
      continue;
    }
    if (!a.startsWith('--')) return null;
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    const flags = phase === 'globals' ? GLOBAL_FLAGS : LIST_FLAGS;
    const values = phase === 'globals' ? GLOBAL_VALUES : LIST_VALUES;
    if (flags.has(name) && eq < 0) {
      set(name, true);
      i++;
    } else if (values.has(name)) {
      const v = eq < 0 ? args[i + 1] : a.slice(eq + 1);
      if (v === undefined || v === '' || v.startsWith('-')) return null;
      set(name, v);
      i += eq < 0 ? 2 : 1;
    } else return null;
  }
  return phase === 'list' ? { globals, list } : null;
}

const parsed = process.env.BATON_LIST_LEAN === '0' ? null : parseListArgv(process.argv.slice(2));
if (parsed) {
  run(parsed.globals, () => listCommand(parsed.globals, parsed.list)).catch((e) => {
    process.stderr.write(`baton: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
} else {
  require('./cli.cjs'); // the full command line: a sibling CommonJS bundle in dist/
}
