// /mcp on `baton serve` (mcp.md): the same tool set as `baton mcp`, over Streamable
// HTTP, behind the server's token (the route table of src/server/transports.ts checks it
// before any route runs). Stateless: each request gets a fresh MCP server from the SDK's
// handler, so nothing is held between requests and a client may send to any instance.
// A call names its session (there is no agent directory over HTTP; BATON_SESSION of the
// serving process is not an agent's).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { HttpServer } from '../server/transports.ts';
import type { FsStore } from '../store/store.ts';
import { mcpServer, mcpWriter } from './tools.ts';

/** The largest request body read (the app server's message bound). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

async function body(req: IncomingMessage): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of req) {
    n += (chunk as Buffer).length;
    if (n > MAX_BODY_BYTES) return null;
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

/** The route handler for POST /mcp. */
export function mcpRoute(o: { store: FsStore; version: string; log: (line: string) => void }) {
  const handler = createMcpHandler(
    (rc) => {
      const client = rc.requestInfo?.headers.get('user-agent')?.split('/')[0] || 'http';
      return mcpServer({ store: o.store, writer: mcpWriter(client), sessions: { cwd: null }, version: o.version });
    },
    { onerror: (e) => o.log(`mcp: ${e.message}`) },
  );
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const bytes = await body(req);
    if (bytes === null) {
      res.writeHead(413, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `request body over ${MAX_BODY_BYTES} bytes` }));
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const response = await handler.fetch(new Request(url, { method: req.method, headers, body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(bytes), signal: abort.signal }));
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => {
      out[k] = v;
    });
    res.writeHead(response.status, out);
    if (!response.body) return void res.end();
    for await (const chunk of response.body) res.write(chunk);
    res.end();
  };
}

/** Adds /mcp to the server's route table: POST serves; GET and DELETE (sessionful Streamable HTTP) get the SDK's 405. */
export function mountMcp(http: HttpServer, o: { store: FsStore; version: string; log: (line: string) => void }): void {
  const route = mcpRoute(o);
  for (const method of ['POST', 'GET', 'DELETE']) http.route(method, '/mcp', route);
}
