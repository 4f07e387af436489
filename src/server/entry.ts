// dist/serve.cjs: `baton serve ...` as bin/baton.cjs routes it (argv after the node binary and script).
import { runServe } from './main.ts';

runServe(process.argv.slice(2));
