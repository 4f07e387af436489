// The lean entry of `baton search` (dist/search.cjs): a search from a shell or a script
// loads only the index and the search command, not commander and every command group.
// bin/baton.cjs routes here an argv whose command is `search`; this entry parses the
// options search knows (--home, --json, --quiet anywhere; --all, --cwd, --type, --agent,
// --role, --kind, --file, --session, --since, --until, --limit, as `--x v` or `--x=v`)
// and hands anything else (--help, an unknown option, a short option, a missing value, a
// value or a word starting with `-`, no word at all) to the full command line unchanged,
// before doing any work. Output, exit codes and errors are those of the full command (the
// same searchCommand through the same run()). BATON_SEARCH_LEAN=0 always takes the full path.
import { searchCommand } from './index-commands.ts';
import { run } from './output.ts';
import { parseSearchArgv } from './search-args.ts';

const parsed = process.env.BATON_SEARCH_LEAN === '0' ? null : parseSearchArgv(process.argv.slice(2));
if (parsed) {
  run(parsed.globals, () => searchCommand(parsed.globals, parsed.words, parsed.options)).catch((e) => {
    process.stderr.write(`baton: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
} else {
  require('./cli.cjs'); // the full command line: a sibling CommonJS bundle in dist/
}
