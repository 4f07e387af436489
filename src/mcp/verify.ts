// `baton verify` for the mcp aspect: spawns each configured baton MCP server exactly as the
// agent would (its command and args, in the project), sends `initialize` then `tools/list`
// over stdio as newline-delimited JSON-RPC, and checks the answer names baton's tools.
// Writes nothing (no tool is called). CLI only: plain JSON lines, no MCP SDK.
import { spawn } from 'node:child_process';
import type { InstallContext } from '../providers/install.ts';
import type { Scope } from '../providers/types.ts';
import { configuredMcp } from './install.ts';
import { TOOL_NAMES } from './names.ts';

/** What an agent waits for at start: a server not answering in this long is a failure. */
export const MCP_VERIFY_BUDGET_MS = 10_000;

export interface McpVerifyRow {
  provider: string;
  scope: Scope;
  event: 'mcp';
  ok: boolean;
  ms: number;
  budget_ms: number;
  problems: string[];
  trusted: null;
}

/** Runs one server: initialize + tools/list; resolves the tool names, or throws what went wrong. */
export function probeMcp(command: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let settled = false;
    const done = (e: Error | null, tools?: string[]): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdin.end();
      setTimeout(() => child.kill('SIGTERM'), 500).unref();
      if (e) reject(e);
      else resolve(tools ?? []);
    };
    const timer = setTimeout(() => done(new Error(`no answer to initialize + tools/list within ${o.timeoutMs} ms`)), o.timeoutMs);
    const send = (m: unknown): void => {
      child.stdin.write(`${JSON.stringify(m)}\n`);
    };
    child.on('error', (e) => done(new Error(`cannot start ${command}: ${e.message}`)));
    child.on('exit', (code) => done(new Error(`exited ${code} before answering${err.trim() ? `: ${err.trim().split('\n')[0]}` : ''}`)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        let m: { id?: number; result?: { tools?: { name: string }[] }; error?: { message: string } };
        try {
          m = JSON.parse(line);
        } catch {
          return done(new Error(`wrote a line that is not JSON on stdout: ${line.slice(0, 80)}`));
        }
        if (m.error) return done(new Error(`answered an error: ${m.error.message}`));
        if (m.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
        } else if (m.id === 2) done(null, (m.result?.tools ?? []).map((t) => t.name));
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'baton-verify', version: '1' } } });
  });
}

export async function verifyMcp(provider: string, ctx: InstallContext, env: NodeJS.ProcessEnv): Promise<McpVerifyRow[]> {
  const rows: McpVerifyRow[] = [];
  for (const { scope, entry } of configuredMcp(provider, ctx)) {
    const t0 = process.hrtime.bigint();
    const problems: string[] = [];
    try {
      const tools = await probeMcp(entry.command, entry.args, { cwd: ctx.projectRoot, env, timeoutMs: MCP_VERIFY_BUDGET_MS });
      const missing = TOOL_NAMES.filter((t) => !tools.includes(t));
      if (missing.length) problems.push(`tools/list lacks ${missing.join(', ')}`);
    } catch (e) {
      problems.push((e as Error).message);
    }
    rows.push({ provider, scope, event: 'mcp', ok: problems.length === 0, ms: Math.round(Number(process.hrtime.bigint() - t0) / 1e6), budget_ms: MCP_VERIFY_BUDGET_MS, problems, trusted: null });
  }
  return rows;
}
