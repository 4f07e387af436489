// The `baton` command line: wiring only. Each command group lives in its own file and
// registers itself here; rules live below (core, store, pointer, index, providers).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { adoptNativeSha256 } from '../core/hash.ts';
import { registerCompletionCommand } from './completion.ts';
import { registerContinueCommand } from './continue.ts';
import { registerExchangeCommands } from './exchange.ts';
import { registerHistoryCommands } from './history.ts';
import { registerHookCommands } from './hooks.ts';
import { registerIndexCommands } from './index-commands.ts';
import { type GlobalOptions, jsonRequested, printJsonError } from './output.ts';
import { registerPointerCommands } from './pointer.ts';
import { registerRefCommands } from './ref.ts';
import { registerSessionCommands } from './session.ts';
import { registerTeamCommands } from './team.ts';
import { checkUsage } from './usage.ts';
import { storeChangedInProcess } from '../store/feed.ts';
import { MCP_HELP, SERVE_HELP } from '../server/help.ts';

declare const BATON_VERSION: string;
const VERSION = typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev';

adoptNativeSha256(createHash);

/**
 * Whether the loader may keep V8's code cache of this bundle in the home (src/cli/lean-boot.ts):
 * only after a command that appended to the store. A command that writes nothing (doctor,
 * verify, `continue --print`, show, log, export, help) leaves the home byte for byte as it was,
 * cache included (docs/adr/0087).
 */
export const mayKeepCodeCache = (): boolean => storeChangedInProcess();

export function buildProgram(): Command {
  const program = new Command('baton');
  program
    .description('Durable, resumable sessions for AI coding agents, shared by every surface.')
    .version(VERSION, '--version')
    .option('--home <dir>', 'store root (else $BATON_HOME, else $XDG_STATE_HOME/baton)')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('--quiet', 'print nothing but errors')
    .enablePositionalOptions(false)
    .showHelpAfterError()
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error:/, 'baton: USAGE')) })
    .exitOverride((err) => {
      // `--help` exits 0; help shown because a command is missing (commander.help with an error exit code) is a usage error.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || (err.code === 'commander.help' && err.exitCode === 0)) process.exit(0);
      // A usage error commander found (missing argument, unknown option): the envelope too.
      if (jsonRequested()) printJsonError('USAGE', err.message.replace(/^error: /, ''), { commander: err.code });
      process.exit(2);
    });
  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  registerSessionCommands(program, globals);
  registerExchangeCommands(program, globals);
  registerPointerCommands(program, globals);
  registerRefCommands(program, globals);
  registerIndexCommands(program, globals);
  registerHistoryCommands(program, globals);
  registerHookCommands(program, globals);
  registerTeamCommands(program, globals);
  registerCompletionCommand(program, globals);
  registerContinueCommand(program, globals);
  // `baton help serve|mcp` prints the very text `baton serve|mcp --help` prints (src/server/help.ts).
  const serve = program
    .command('serve')
    .description('the app server: JSON-RPC over stdio or HTTP + WebSocket (docs/server.md)')
    .option('--stdio', 'serve one client on stdin/stdout (logs on stderr)')
    .option('--host <host>', 'address to bind (loopback unless --allow-remote)', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '7787')
    .option('--allow-remote', 'allow binding a non-loopback address')
    .option('--new-token', 'replace <home>/server.token')
    .option('--open', 'print the URL with the token and open it in the desktop\'s browser (BROWSER, open, xdg-open; none without a desktop)')
    .option('--no-team', 'do not run the team replicator (docs/team.md) in a home that joined a team')
    // bin/baton.cjs routes `baton serve` to dist/serve.cjs; a `serve` after global options lands here and goes there too.
    .action(() => require(join(__dirname, 'serve.cjs')));
  serve.helpInformation = () => SERVE_HELP;
  const mcp = program
    .command('mcp')
    .description("baton's MCP server on stdio, for an agent's MCP configuration (docs/mcp.md)")
    // bin/baton.cjs routes `baton mcp` to dist/mcp.cjs; reached here only after global options.
    .action(() => require(join(__dirname, 'mcp.cjs')));
  mcp.helpInformation = () => MCP_HELP;
  program
    .command('pick')
    .description('pick a session in the terminal: filter, search, preview, continue (docs/cli.md)')
    .option('--all', 'every workspace')
    .option('--print', "print the chosen session's id and its continue command")
    // bin/baton.cjs routes `baton pick` to dist/pick.mjs (Ink); reached here only after global options.
    .action(() => import(pathToFileURL(join(__dirname, 'pick.mjs')).href));
  return program;
}

const program = buildProgram();
checkUsage(program, process.argv, VERSION);
program
  .parseAsync(process.argv)
  .catch((e) => {
    process.stderr.write(`baton: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
