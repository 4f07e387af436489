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
import { MCP_HELP } from '../server/help.ts';
import { FlowGate, OutboundLines } from './flow.ts';
import { LineBound, MAX_STDIO_MESSAGE_BYTES, tooLargeAnswer } from './stdin-bound.ts';
import { mcpServer, mcpWriter } from './tools.ts';

declare const BATON_VERSION: string;
export const VERSION = typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev';

adoptNativeSha256(createHash);


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
    process.stdout.write(MCP_HELP);
    return;
  }
  const store = new FsStore(resolveHome(o.home));
  // What goes out is counted (flow.ts): stdin is read on only while fewer than 16 requests are
  // being answered and the answers the client has not taken are under 8 MiB.
  const outbound = new OutboundLines(process.stdout);
  // stdin through the line bound: a message over 4 MiB is dropped with a code, never the end of the server.
  const input = process.stdin
    .pipe(
      new LineBound((d) => {
        process.stderr.write(`baton mcp: INPUT_TOO_LARGE a message of ${d.bytes} bytes or more on stdin (limit ${MAX_STDIO_MESSAGE_BYTES}); dropped, nothing done\n`);
        if (d.id !== null) outbound.write(`${tooLargeAnswer(d)}\n`);
      }),
    )
    .pipe(new FlowGate(outbound));
  const transport = new StdioServerTransport(input as unknown as typeof process.stdin, outbound as unknown as typeof process.stdout);
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
