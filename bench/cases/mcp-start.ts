// mcp.start (mcp.md, bench.md): `baton mcp` from spawn to the answers of `initialize` and
// `tools/list` (what an agent waits for at start, the eight tools listed), against `node -e 0`,
// both spawned the same way with the honest baseline environment (userEnv), interleaved,
// median of per-pair ratios. The SDK loads only in dist/mcp.cjs, so this is its whole cost.
// Target ≤ 8 (node -e 0 is ~40 ms here; the agent waits for the server once per start).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { interleaved, nowMs, timeProcess, userEnv } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } };

/** Spawns `baton mcp`, answers its handshake, and resolves the ms until tools/list came back (and how many tools). */
function startOnce(bin: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; tools: number }> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(process.execPath, [bin, 'mcp'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    child.on('error', reject);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (m.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
        } else if (m.id === 2) {
          const ms = nowMs() - t0;
          child.stdin.end();
          child.on('exit', () => resolve({ ms, tools: m.result?.tools?.length ?? 0 }));
        }
      }
    });
    send(INIT);
  });
}

const mcpStart: BenchCase = {
  name: 'mcp.start',
  async run(ctx): Promise<CaseResult> {
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const env: NodeJS.ProcessEnv = { ...userEnv(process.env).env, BATON_HOME: join(ctx.tmp, 'store') };
    delete env.BATON_SESSION;
    const check = await startOnce(bin, env);
    const pairs = ctx.quick ? 10 : 30;
    const r = await interleaved(
      pairs,
      async () => (await startOnce(bin, env)).ms,
      () => timeProcess(process.execPath, ['-e', '0']),
    );
    const target = 8;
    return {
      name: 'mcp.start',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'ms',
      target: `ratio ≤ ${target}`,
      pass: r.ratio <= target && check.tools === 8,
      details: { pairs, tools_listed: check.tools, ours_ms_median: r.a, node_e0_ms_median: r.b, node: process.version },
    };
  },
};

export default mcpStart;
