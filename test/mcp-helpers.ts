// Helpers of the MCP server's tests: the SDK's own client (@modelcontextprotocol/client)
// against the real `bin/baton.cjs mcp` (stdio) or the real `baton serve` (POST /mcp), in a
// temporary BATON_HOME.
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN } from './helpers.ts';
import { type RunningServer, envFor } from './server-helpers.ts';

export async function stdioMcp(home: string, opts: { cwd?: string; env?: Record<string, string | undefined>; name?: string } = {}): Promise<Client> {
  const c = new Client({ name: opts.name ?? 'mcp-test', version: '1' });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: opts.cwd, env: envFor(home, opts.env), stderr: 'pipe' }));
  return c;
}

export async function httpMcp(s: RunningServer, name = 'mcp-test'): Promise<Client> {
  const c = new Client({ name, version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${s.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${s.token}` } } }));
  return c;
}

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: any;
}

export async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await c.callTool({ name, arguments: args })) as unknown as ToolResult;
}

/** A successful call's structured result (its text is the same JSON, ≤ 16 KiB). */
export async function ok(c: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(c, name, args);
  assert.ok(!r.isError, `${name} refused: ${r.content[0]?.text}`);
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
  return r.structuredContent;
}

/** A refusal: isError, the code first in the text and in structuredContent.code. */
export async function refused(c: Client, name: string, args: Record<string, unknown>, code: string): Promise<any> {
  const r = await call(c, name, args);
  assert.equal(r.isError, true, `${name} should refuse with ${code}: ${r.content[0]?.text}`);
  assert.equal(r.structuredContent?.code, code, r.content[0]?.text);
  assert.ok(r.content[0].text.startsWith(`${code}: `), r.content[0].text);
  assert.ok(r.structuredContent.next.length > 0);
  return r.structuredContent;
}
