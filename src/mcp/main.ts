// `baton mcp` (mcp.md): baton's MCP server on stdin/stdout, what an agent's MCP configuration
// spawns. Its own bundle (dist/mcp.cjs, routed by bin/baton.cjs): the SDK costs ~100 ms to
// load, so neither the hook nor the command line ever loads it.
// Source of truth: the store; this process holds nothing a crash could lose. Logs go to
// stderr only (stdout carries the protocol). It ends when the client closes stdin.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { BatonError } from '../core/errors.ts';
import { adoptNativeSha256 } from '../core/hash.ts';
import { resolveHome } from '../store/home.ts';
import { FsStore } from '../store/store.ts';
import { mcpServer, mcpWriter } from './tools.ts';

declare const BATON_VERSION: string;
export const VERSION = typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev';

adoptNativeSha256(createHash);

const HELP = `Usage: baton mcp [--home <dir>]

baton's MCP server on stdio (docs/mcp.md): the tools pointer_get, pointer_publish,
context_append, session_list, session_log, ref_capture, ref_list and search, and the
resources baton://session/{id}/context and baton://session/{id}/pointer. An agent's MCP
configuration spawns it (\`baton install PROVIDER --aspects mcp\` adds it). A tool call that
names no session uses $BATON_SESSION, else the session whose episode the agent's hooks
opened in this directory.

Options:
  --home <dir>   store root (else $BATON_HOME)
  -h, --help     this help
`;

function parse(argv: string[]) {
  const args = [...argv];
  const at = args.indexOf('mcp');
  if (at >= 0) args.splice(at, 1);
  try {
    return parseArgs({ args, strict: true, allowPositionals: false, options: { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }).values;
  } catch (e) {
    throw new BatonError('USAGE', e instanceof Error ? e.message : String(e));
  }
}

export async function main(argv: string[]): Promise<void> {
  const o = parse(argv);
  if (o.help) {
    process.stdout.write(HELP);
    return;
  }
  const store = new FsStore(resolveHome(o.home));
  const transport = new StdioServerTransport();
  let clientName = 'client';
  const server = mcpServer({
    store,
    get writer() {
      return mcpWriter(clientName);
    },
    sessions: { envSession: process.env.BATON_SESSION || undefined, cwd: process.cwd() },
    version: VERSION,
  });
  server.server.oninitialized = () => {
    clientName = server.server.getClientVersion()?.name ?? clientName;
  };
  await server.connect(transport);
}

/** Runs main and turns a refusal into the CLI's conventions (exit 2, `baton: CODE message`). */
export function runMcp(argv: string[]): void {
  main(argv).catch((e) => {
    if (e instanceof BatonError) {
      process.stderr.write(`baton: ${e.code} ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`baton: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
