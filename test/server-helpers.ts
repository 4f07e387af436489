// Helpers of the app server's tests: the real `baton serve` (bin/baton.cjs) in a temporary
// BATON_HOME, over HTTP/WebSocket or stdio, and clients of it (our BatonClient, raw frames).
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { BIN } from './helpers.ts';
import type { BatonClient as Client } from '../src/client/index.ts';

/** The built client, as a user imports it (package.json exports: baton/client). */
export async function clientModule(): Promise<typeof import('../src/client/index.ts')> {
  return (await import('baton/client' as string)) as typeof import('../src/client/index.ts');
}

export const TEST_ENV = { NO_COLOR: '1', BATON_INSTANCE: undefined, BATON_SESSION: undefined, NODE_OPTIONS: undefined };

export function envFor(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, ...TEST_ENV, BATON_HOME: home, ...extra };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env as Record<string, string>;
}

export interface RunningServer {
  proc: ChildProcess;
  port: number;
  url: string;
  wsUrl: string;
  token: string;
  stderr: () => string;
  stdout: () => string;
  /** SIGTERM and wait for the exit; resolves the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `baton serve --port 0` and waits for its listening line. */
export function startServer(home: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<RunningServer> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env: envFor(home, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  proc.stdout?.setEncoding('utf8').on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baton serve did not start: ${err}`)), 30_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`baton serve exited ${code}: ${err}${out}`));
    });
    proc.stderr?.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /listening on (http:\/\/[^ ]+\/)/.exec(err);
      if (m) {
        clearTimeout(timer);
        const url = m[1];
        const port = Number(new URL(url).port);
        const token = fs.readFileSync(join(home, 'server.token'), 'utf8').trim();
        resolve({
          proc,
          port,
          url,
          wsUrl: `ws://127.0.0.1:${port}/rpc`,
          token,
          stderr: () => err,
          stdout: () => out,
          stop: () =>
            new Promise((r) => {
              if (proc.exitCode !== null) return r(proc.exitCode);
              proc.removeAllListeners('exit');
              proc.on('exit', (code) => r(code));
              proc.kill('SIGTERM');
            }),
        });
      }
    });
  });
}

/** A BatonClient over the WebSocket of a running server, initialized as `name`. */
export async function wsClient(s: RunningServer, name = 'tester', surface?: 'api' | 'web' | 'ide-skill'): Promise<Client> {
  const { BatonClient } = await clientModule();
  const c = await BatonClient.connect(s.wsUrl, { token: s.token, WebSocket: WebSocket as never });
  await c.initialize({ clientInfo: { name, version: '1' }, ...(surface ? { surface } : {}) });
  return c;
}

/** A BatonClient over a spawned `baton serve --stdio`, initialized as `name`. */
export async function stdioClient(home: string, name = 'tester', surface?: 'api' | 'web' | 'ide-skill'): Promise<Client> {
  const { BatonClient } = await clientModule();
  const c = await BatonClient.spawn({ command: process.execPath, args: [BIN, 'serve', '--stdio'], env: envFor(home) });
  await c.initialize({ clientInfo: { name, version: '1' }, ...(surface ? { surface } : {}) });
  return c;
}

/** Raw frames over a client's transport: send text, get the next answer to a raw request (protocol-level tests). */
export interface Raw {
  send(text: string): void;
  next(): Promise<any>;
  close(): void;
}

export function rawOver(c: Client): Raw {
  const queue: any[] = [];
  const waiting: ((m: any) => void)[] = [];
  // Raw requests use string ids or numbers from 100000 (the client's own ids count from 1).
  const mine = (m: any): boolean => Array.isArray(m) || m?.id === null || typeof m?.id === 'string' || (typeof m?.id === 'number' && m.id >= 100_000);
  c.transport.onMessage((t) => {
    const m = JSON.parse(t);
    if (!mine(m)) return;
    const w = waiting.shift();
    if (w) w(m);
    else queue.push(m);
  });
  return {
    send: (t) => c.transport.send(t),
    next: () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r))),
    close: () => c.close(),
  };
}

/** Waits until pred() holds, checking every few ms (no timing assertion: a test timeout bounds it). */
export async function until(pred: () => boolean, what: string, ms = 30_000): Promise<void> {
  const start = Date.now();
  while (!pred()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
