// The loader of the command line's bundles (dist/lean-boot.cjs): bin/baton.cjs runs `session
// list` (what a resume picker runs), `search` and every other command of the full command line
// (dist/cli.cjs; docs/adr/0087) through it. Like the hook's loader (src/hooks/boot.ts,
// docs/adr/0006), it compiles the bundle with V8's code cache kept in the store's home
// (<home>/cache, by the bundle's build hash, size, mtime, Node version and arch), so the process
// skips parsing and compiling ~110–170 KB (list, search) or ~740 KB (cli). The cache is written only by a run
// that succeeded (exit 0), in a home baton made (its marker): a refused command or a wrong
// `--home` leaves the disk as it was. Anything wrong with the cache means a plain compile.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runWithCodeCache } from '../hooks/codecache.ts';
import { resolveHome } from '../store/home.ts';

/** The sha-256 of dist/list.cjs, dist/search.cjs and dist/cli.cjs, written in by scripts/build.mjs. */
declare const BATON_LIST_SHA: string;
declare const BATON_SEARCH_SHA: string;
declare const BATON_CLI_SHA: string;

/** `--home DIR` or `--home=DIR` anywhere in the argv (the commands parse it again themselves). */
function homeFlag(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--home') return argv[i + 1];
    if (argv[i].startsWith('--home=')) return argv[i].slice(7);
  }
  return undefined;
}

export function boot(name: 'list' | 'search' | 'cli'): void {
  const file = join(__dirname, `${name}.cjs`);
  let home: string;
  try {
    home = resolveHome(homeFlag(process.argv.slice(2)));
  } catch {
    // The command itself says what is wrong with the home.
    require(file);
    return;
  }
  const run = runWithCodeCache(file, name === 'list' ? BATON_LIST_SHA : name === 'search' ? BATON_SEARCH_SHA : BATON_CLI_SHA, home, createRequire(file), name);
  if (run.cache === 'used') return;
  process.on('exit', (code) => {
    // The full command line keeps a cache only after a command that wrote to the store anyway.
    if (code === 0 && (name !== 'cli' || (run.exports as { mayKeepCodeCache?: () => boolean } | undefined)?.mayKeepCodeCache?.() === true)) run.save(1);
  });
}
