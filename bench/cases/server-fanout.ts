// server.fanout (bench.md, server.md): 50 WebSocket subscribers on one thread of one
// `baton serve`; another process appends 1,000 events through the store API (one append,
// one fsync each, as the CLI and the hooks do) and notes the time each was acknowledged.
// Measured: from an append's acknowledgement to its receipt at every subscriber, p99 ≤ 100 ms;
// every subscriber must see every event once, in order.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { percentile } from '../lib.ts';
import { benchClient, startBenchServer } from '../server-lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const APPENDER = `
const { FsStore } = require(process.argv[1]);
const [home, id, n] = process.argv.slice(2);
const store = new FsStore(home);
const writer = { surface: 'cli', instanceId: 'bench-appender', actor: 'user' };
const out = [];
for (let i = 0; i < Number(n); i++) {
  const [ev] = store.append(id, { type: 'context.appended', surface: 'cli', actor: 'user', payload: { text: 'fanout event ' + i } }, writer);
  out.push(ev.seq + ' ' + (performance.timeOrigin + performance.now()));
}
process.stdout.write(out.join('\\n') + '\\n');
`;

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

const serverFanout: BenchCase = {
  name: 'server.fanout',
  async run(ctx): Promise<CaseResult> {
    const subscribers = 50;
    const events = ctx.quick ? 300 : 1000;
    const home = join(ctx.tmp, 'home');
    const ws = join(ctx.tmp, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    const lib = join(ctx.root, 'dist', 'lib.cjs');
    const { FsStore } = createRequire(import.meta.url)(lib);
    const store = new FsStore(home);
    const { id } = store.create({ title: 'fanout', id: 'fanout', workspace: { cwd: ws }, writer: { surface: 'cli', instanceId: 'bench-appender', actor: 'user' }, leaseMs: 3_600_000 });
    const s = await startBenchServer(ctx.root, home);
    try {
      const recv: Map<number, number>[] = [];
      const order: number[][] = [];
      const clients = [];
      for (let i = 0; i < subscribers; i++) {
        const c = await benchClient(ctx.root, s, `fan-${i}`);
        const m = new Map<number, number>();
        const seqs: number[] = [];
        c.onEvent((n) => {
          m.set(n.event.seq, performance.timeOrigin + performance.now());
          seqs.push(n.event.seq);
        });
        await c.eventSubscribe({ threadId: id });
        recv.push(m);
        order.push(seqs);
        clients.push(c);
      }
      const serverCpu0 = cpuMsOf(s.proc.pid as number);
      const ownCpu0 = process.cpuUsage();
      const acks = await new Promise<Map<number, number>>((resolve, reject) => {
        const p = spawn(process.execPath, ['-e', APPENDER, lib, home, id, String(events)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout.setEncoding('utf8').on('data', (d) => (out += d));
        p.stderr.setEncoding('utf8').on('data', (d) => (err += d));
        p.on('close', (code) => {
          if (code !== 0) return reject(new Error(`appender exited ${code}: ${err}`));
          resolve(new Map(out.trim().split('\n').map((l) => l.split(' ').map(Number) as [number, number])));
        });
      });
      const deadline = Date.now() + 60_000;
      while (recv.some((m) => m.size < events) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const serverCpu = cpuMsOf(s.proc.pid as number) - serverCpu0;
      const own = process.cpuUsage(ownCpu0);
      for (const c of clients) c.close();
      const want = [...acks.keys()];
      const complete = order.every((seqs) => seqs.length === want.length && seqs.every((q, i) => q === want[i]));
      const lat: number[] = [];
      for (const m of recv) for (const [seq, at] of acks) if (m.has(seq)) lat.push((m.get(seq) as number) - at);
      const p99 = percentile(lat, 99);
      return {
        name: 'server.fanout',
        ours: p99,
        baseline: null,
        ratio: null,
        unit: 'ms p99',
        target: 'p99 ack->receipt <= 100 ms; every subscriber every event once, in order',
        pass: p99 <= 100 && complete,
        details: { subscribers, events, append_span_ms: Math.max(...acks.values()) - Math.min(...acks.values()), p50_ms: percentile(lat, 50), p99_ms: p99, max_ms: Math.max(...lat), server_cpu_ms_per_event: serverCpu / events, subscribers_cpu_ms_per_event: (own.user + own.system) / 1000 / events, every_event_once_in_order: complete, samples: lat.length },
      };
    } finally {
      await s.stop();
    }
  },
};

export default serverFanout;
