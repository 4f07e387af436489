// The hook entry bundle (dist/hook.cjs): `baton hook PROVIDER` with the payload on stdin.
// Loads no schema library, no commander, no SQLite, no settings editor (a test reads the
// bundle's inputs to prove it). process.argv = [node, bin/baton.cjs, 'hook', ...].
import { hookMain, parseHookArgs } from './main.ts';

hookMain(parseHookArgs(process.argv.slice(3)));
