// The app-server benches' shared parts (bench.md: server.replay, server.fanout, server.list):
// the real `baton serve` on a free port over a given home, and the built baton/client.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { BatonClient } from '../src/client/index.ts';

export interface BenchServer {
  proc: ChildProcess;
  wsUrl: string;
  token: string;
  /** Peak RSS so far (VmHWM) of the server process. */
  peakRss(): number;
  stop(): Promise<void>;
}

export function startBenchServer(root: string, home: string): Promise<BenchServer> {
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_HOME: home, NO_COLOR: '1' };
  delete env.NODE_OPTIONS;
  const proc = spawn(process.execPath, [join(root, 'bin', 'baton.cjs'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  let started = false;
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => reject(new Error(`baton serve exited ${code}: ${err}`)));
    proc.stderr?.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /listening on http:\/\/[^:]+:(\d+)\//.exec(err);
      if (!m || started) return;
      started = true;
      proc.removeAllListeners('exit');
      resolve({
        proc,
        wsUrl: `ws://127.0.0.1:${m[1]}/rpc`,
        token: fs.readFileSync(join(home, 'server.token'), 'utf8').trim(),
        peakRss: () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024,
        stop: () =>
          new Promise((r) => {
            if (proc.exitCode !== null || proc.signalCode !== null) return r();
            const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
            proc.on('exit', () => {
              clearTimeout(kill);
              r();
            });
            proc.kill('SIGTERM');
          }),
      });
    });
  });
}

/** A BatonClient (the built dist/client.cjs, as users import it) over the server's WebSocket, initialized. */
export async function benchClient(root: string, s: BenchServer, name: string): Promise<BatonClient> {
  const { BatonClient: Client } = (await import(join(root, 'dist', 'client.cjs'))) as typeof import('../src/client/index.ts');
  const c = await Client.connect(s.wsUrl, { token: s.token, WebSocket: WebSocket as never });
  await c.initialize({ clientInfo: { name, version: 'bench' } });
  return c;
}
