// The argv of `[globals] search WORD... [options]` as the lean search entry (search-entry.ts)
// reads it: pure, so tests call it without starting the entry.
import type { SearchOptions } from './index-commands.ts';
import type { GlobalOptions } from './output.ts';

const FLAGS = new Set(['--json', '--quiet', '--all']);
const VALUES = new Set(['--home', '--cwd', '--type', '--agent', '--role', '--kind', '--file', '--session', '--since', '--until', '--limit']);

export interface LeanSearchArgs {
  globals: GlobalOptions;
  words: string[];
  options: SearchOptions;
}

/**
 * Parses `[globals] search WORD... [options]` (pure). Null when the argv is anything else or
 * anything the full command line must judge (help, unknown options, values that look like options).
 */
export function parseSearchArgv(args: readonly string[]): LeanSearchArgs | null {
  const globals: GlobalOptions = {};
  const options: SearchOptions = {};
  const words: string[] = [];
  const set = (name: string, value: string | true): void => {
    if (name === '--home') globals.home = value as string;
    else if (name === '--json') globals.json = true;
    else if (name === '--quiet') globals.quiet = true;
    else if (name === '--all') options.all = true;
    else options[name.slice(2) as Exclude<keyof SearchOptions, 'all'>] = value as string;
  };
  let seen = false;
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (!a.startsWith('-')) {
      if (seen) words.push(a);
      else if (a === 'search') seen = true;
      else return null;
      i++;
      continue;
    }
    if (!a.startsWith('--') || a === '--') return null;
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    // Before the command only the global options (what commander accepts there).
    if (!seen && name !== '--home' && name !== '--json' && name !== '--quiet') return null;
    if (FLAGS.has(name) && eq < 0) {
      set(name, true);
      i++;
    } else if (VALUES.has(name)) {
      const v = eq < 0 ? args[i + 1] : a.slice(eq + 1);
      if (v === undefined || v === '' || v.startsWith('-')) return null;
      set(name, v);
      i += eq < 0 ? 2 : 1;
    } else return null;
  }
  return seen && words.length ? { globals, words, options } : null;
}
