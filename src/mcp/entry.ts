// dist/mcp.cjs: `baton mcp ...` as bin/baton.cjs routes it (argv after the node binary and script).
import { runMcp } from './main.ts';

runMcp(process.argv.slice(2));
