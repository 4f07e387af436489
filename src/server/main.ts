// `baton serve` (server.md): the app server's entry, its own bundle (dist/serve.cjs, routed
// by bin/baton.cjs) so the rest of the command line never loads ws or json-rpc-2.0.
//   baton serve --stdio                          JSON-RPC on stdin/stdout, logs on stderr
//   baton serve [--host H] [--port P] [--allow-remote] [--new-token] [--open]
// Source of truth: the store; this process holds no state a crash could lose but its
// subscriptions (clients re-subscribe with `after`). It writes <home>/server.token (once)
// and <home>/server.json (while it runs; removed on SIGINT/SIGTERM). When the home has joined
// a team (and not --no-team), it also runs the team's replicator (docs/team.md), from
// dist/team.cjs required only then; thread/resume and thread/release require it (through
// src/ops/team.ts, the same loader) only on a shared session: a server without team mode
// never loads `postgres`.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BatonError } from '../core/errors.ts';
import { adoptNativeSha256 } from '../core/hash.ts';
import { PositionCache, RedactionCache } from '../ops/events.ts';
import { requireTeamBundle } from '../ops/team.ts';
import { resolveHome } from '../store/home.ts';
import { FsStore } from '../store/store.ts';
import { readConfig } from '../team/config.ts';
import type { Replicator, ReplicatorEvent } from '../team/watch.ts';
import { type ServerFile, removeServerFile, serverToken, writeServerFile } from './auth.ts';
import { Dispatcher } from './dispatcher.ts';
import { serveSessionFile } from './files.ts';
import { SERVE_HELP } from './help.ts';
import { type ServerContext, methods } from './methods.ts';
import { Subscriptions } from './subscriptions.ts';
import { HttpServer, isLoopback, serveStdio } from './transports.ts';
import { mountMcp } from '../mcp/http.ts';

declare const BATON_VERSION: string;
const VERSION = typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev';

adoptNativeSha256(createHash);

export const DEFAULT_PORT = 7787;


function usage(message: string): never {
  throw new BatonError('USAGE', message);
}

function parse(argv: string[]) {
  const args = [...argv];
  const at = args.indexOf('serve');
  if (at >= 0) args.splice(at, 1);
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        stdio: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        'allow-remote': { type: 'boolean' },
        'new-token': { type: 'boolean' },
        open: { type: 'boolean' },
        'no-team': { type: 'boolean' },
        home: { type: 'string' },
        json: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    usage(e instanceof Error ? e.message : String(e));
  }
}

type TeamEntry = { startReplicator(store: FsStore, opts: { onEvent?: (e: ReplicatorEvent) => void; onFailure?: (e: unknown) => void }): Replicator | null };

/**
 * The team replicator of a server whose home has joined a team: the same loop as
 * `sync --watch`, in this process. dist/team.cjs is required only here, only then.
 */
function startTeam(store: FsStore, log: (line: string) => void, changed: () => void): Replicator | null {
  if (!readConfig(store.home)) return null;
  const team = requireTeamBundle<TeamEntry>();
  return team.startReplicator(store, {
    onEvent: (e) => {
      if (e.event === 'connected') log(`team: replicating as ${e.machine}`);
      else if (e.event === 'unreachable') log(`team: ${e.message}; retrying in ${e.retry_ms} ms`);
      else if (e.event === 'synced') for (const x of e.refused) log(`team: ${x.code} ${x.message}`);
      changed();
    },
    onFailure: (e) => {
      log(`team: the replicator stopped: ${e instanceof Error ? e.message : String(e)}`);
      changed();
    },
  });
}

/** Who can reach a non-loopback bind: every address of this machine for a wildcard, else that one. */
function reachableAddresses(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [host];
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (!a.internal) out.push(a.address);
  return out;
}

export async function main(argv: string[]): Promise<void> {
  const o = parse(argv);
  if (o.help) {
    process.stdout.write(SERVE_HELP);
    return;
  }
  const home = resolveHome(o.home);
  const log = (line: string): void => {
    if (!o.quiet) process.stderr.write(`baton serve: ${line}\n`);
  };
  const store = new FsStore(home);
  const positions = new PositionCache();
  const subs = new Subscriptions(store, positions);
  const ctx: ServerContext = { store, subs, positions, redactions: new RedactionCache(), overrides: new Map(), io: { note: (m) => log(`index: ${m}`) } };
  const dispatcher = new Dispatcher({ version: VERSION }, methods(ctx));

  if (o.stdio) {
    if (o.host || o.port || o['allow-remote'] || o.open) usage('--stdio takes no --host, --port, --allow-remote or --open');
    serveStdio(dispatcher, process.stdin, process.stdout, () => {
      subs.close();
    });
    log(`serving JSON-RPC on stdio (store ${home})`);
    return;
  }

  const host = o.host ?? '127.0.0.1';
  const port = o.port === undefined ? DEFAULT_PORT : Number(o.port);
  if (!/^\d+$/.test(o.port ?? '0') || !Number.isInteger(port) || port < 0 || port > 65535) usage(`--port must be a number from 0 to 65535, got ${JSON.stringify(o.port)}`);
  if (!isLoopback(host) && !o['allow-remote']) usage(`--host ${host} is not a loopback address: add --allow-remote to serve other machines`);
  const token = serverToken(home, !!o['new-token']);
  const http = new HttpServer(dispatcher, { host, port, token, webRoot: join(__dirname, 'web'), version: VERSION, log });
  http.getPrefix((req, res, url) => serveSessionFile(store, req, res, url));
  mountMcp(http, { store, version: VERSION, log }); // mcp.md: the MCP tools over Streamable HTTP at /mcp
  let bound: { port: number };
  try {
    bound = await http.listen();
  } catch (e) {
    throw new BatonError('USAGE', `cannot listen on ${host}:${port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const shown = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${bound.port}/`;
  const file: ServerFile = { pid: process.pid, host, port: bound.port, url, started_at: new Date().toISOString() };
  // server.json carries the replicator's state (`team`), rewritten when it changes.
  let team: Replicator | null = null;
  let stopping = false;
  const publish = (): void => {
    if (!stopping) writeServerFile(home, team ? { ...file, team: team.status() } : file);
  };
  // The handlers before the listening line: a client that signals as soon as it reads the
  // line must find them installed.
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    subs.close();
    removeServerFile(home);
    Promise.all([http.close(), team?.stop()]).then(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  team = o['no-team'] ? null : startTeam(store, log, () => publish());
  publish();
  log(`listening on ${url} (WebSocket ${url}rpc; token in ${join(home, 'server.token')})`);
  if (!isLoopback(host)) {
    log(`--allow-remote: anyone who can reach ${reachableAddresses(host).join(', ')} on port ${bound.port} and holds the token can read and write this store`);
  }
  if (o.open) {
    process.stdout.write(`${url}?token=${token}\n`);
    openBrowser(`${url}?token=${token}`, log);
  }
}

/**
 * Opens the URL in the desktop's browser, as vite's --open does: `open` on macOS, `start` on
 * Windows, `xdg-open` where a desktop is there (DISPLAY or WAYLAND_DISPLAY); BROWSER names
 * another program (`none`: never). Detached, its output ignored; without a desktop or an
 * opener it says so on the log and the printed URL is the way in.
 */
export function openBrowser(target: string, log: (line: string) => void, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): { command: string; args: string[] } | null {
  const chosen = env.BROWSER;
  if (chosen === 'none') return null;
  let command: string;
  let args: string[];
  if (chosen) [command, args] = [chosen, [target]];
  else if (platform === 'darwin') [command, args] = ['open', [target]];
  else if (platform === 'win32') [command, args] = ['cmd', ['/c', 'start', '""', target]];
  else if (env.DISPLAY || env.WAYLAND_DISPLAY) [command, args] = ['xdg-open', [target]];
  else {
    log('--open: no desktop here (neither DISPLAY nor WAYLAND_DISPLAY is set): open the URL above in a browser');
    return null;
  }
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', (e) => log(`--open: cannot run ${command}: ${e.message}; open the URL above in a browser`));
    child.unref();
  } catch (e) {
    log(`--open: cannot run ${command}: ${(e as Error).message}; open the URL above in a browser`);
  }
  return { command, args };
}

/** Runs main and turns a refusal into the CLI's conventions (exit 2, `baton: CODE message`). */
export function runServe(argv: string[]): void {
  main(argv).catch((e) => {
    if (e instanceof BatonError) {
      process.stderr.write(`baton: ${e.code} ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`baton: ${e instanceof Error ? e.message : String(e)}\n`);
    if (process.env.BATON_DEBUG === '1' && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    process.exitCode = 1;
  });
}
