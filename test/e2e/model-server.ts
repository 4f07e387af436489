// A stand-in model server for the e2e suite: answers the Anthropic Messages API
// (`POST /v1/messages`, streamed or not) and the Gemini API (`:generateContent`,
// `:streamGenerateContent?alt=sse`), the Responses API and OpenAI Chat Completions
// (`/v1/chat/completions`, Qwen Code) with scripted replies, and records every request
// body it receives. Bound to 127.0.0.1 only; nothing here reaches the network.
// Source of truth for what an agent was told: `requests` (in arrival order). The test
// owns the server's life; a crash of the test leaves nothing behind but a closed port.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Api = 'anthropic' | 'gemini' | 'openai' | 'chat' | 'other';

export interface RecordedRequest {
  api: Api;
  method: string;
  /** Path with query string, as received. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: any;
  /** Streamed (SSE) reply asked for. */
  stream: boolean;
  /** The main conversation's request: it carries tools (titles, summaries and the like do not). */
  main: boolean;
  /** Every text the request carries (system prompt, messages, tool results), joined by newlines. */
  text: string;
  /** The text of the latest user turn only (a prompt or a tool result). */
  lastUserText: string;
  /** True when the latest user turn is a tool result (Claude `tool_result`, Gemini `functionResponse`). */
  lastIsToolResult: boolean;
}

/**
 * `shell`: a call of the agent's own shell tool with that command; `tool`: a call of the tool
 * named so (as the agent lists it, e.g. Claude Code's `mcp__baton__pointer_publish`) with
 * `input` as its arguments. `reasoning`: a reasoning summary before the text (Responses API only).
 */
export type Reply = { text: string; reasoning?: string } | { shell: string; text?: string } | { tool: string; input: Record<string, unknown>; text?: string } | { hang: true };

/** Decides the reply to one request; `undefined` → the default (a short plain text). */
export type Script = (req: RecordedRequest) => Reply | undefined;

/** The text of a user turn's blocks or parts: prompts and tool results, not the type names. */
function turnText(blocks: any[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (typeof b === 'string') out.push(b);
    else if (typeof b?.text === 'string') out.push(b.text);
    else if (b?.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : turnText(Array.isArray(b.content) ? b.content : []));
    else if (b?.functionResponse) {
      const r = b.functionResponse.response;
      out.push(typeof r?.output === 'string' ? r.output : JSON.stringify(r ?? {}));
    }
  }
  return out.join('\n');
}

/** Collects every string under a JSON value, depth first (system, messages, parts, tool results). */
function collectText(v: unknown, out: string[]): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) collectText(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v as Record<string, unknown>)) collectText(x, out);
  return out;
}

function describe(api: Api, body: any): Pick<RecordedRequest, 'main' | 'text' | 'lastUserText' | 'lastIsToolResult'> {
  if (api === 'anthropic') {
    const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const lastUser = [...msgs].reverse().find((m) => m?.role === 'user');
    const content = lastUser?.content;
    const blocks: any[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    return {
      main: Array.isArray(body?.tools) && body.tools.length > 0,
      text: collectText([body?.system, msgs], []).join('\n'),
      lastUserText: turnText(blocks),
      lastIsToolResult: blocks.some((b) => b?.type === 'tool_result'),
    };
  }
  if (api === 'gemini') {
    const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
    const lastUser = [...contents].reverse().find((c) => c?.role === 'user');
    const parts: any[] = Array.isArray(lastUser?.parts) ? lastUser.parts : [];
    return {
      main: Array.isArray(body?.tools) && body.tools.length > 0,
      text: collectText([body?.systemInstruction, contents], []).join('\n'),
      lastUserText: turnText(parts),
      lastIsToolResult: parts.some((p) => p && typeof p === 'object' && 'functionResponse' in p),
    };
  }
  if (api === 'openai') {
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    const last = input.at(-1);
    const lastIsToolResult = last?.type === 'function_call_output';
    const lastUser = lastIsToolResult ? undefined : [...input].reverse().find((i) => i?.role === 'user');
    return {
      main: Array.isArray(body?.tools) && body.tools.length > 0,
      text: collectText([body?.instructions, input], []).join('\n'),
      lastUserText: lastIsToolResult ? String(last.output ?? '') : collectText(lastUser?.content ?? [], []).filter((t) => t !== 'input_text').join('\n'),
      lastIsToolResult,
    };
  }
  if (api === 'chat') {
    const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
    // Qwen Code may follow a tool result with a user part carrying hook context: the turn is
    // a tool result when a `tool` message comes after the last assistant message.
    const turn = msgs.slice(msgs.map((m: any) => m?.role).lastIndexOf('assistant') + 1);
    const tool = turn.find((m) => m?.role === 'tool');
    const lastIsToolResult = tool !== undefined;
    const lastUser = tool ?? [...msgs].reverse().find((m) => m?.role === 'user');
    return {
      main: Array.isArray(body?.tools) && body.tools.length > 0,
      text: collectText(msgs, []).join('\n'),
      lastUserText: collectText(lastUser?.content ?? [], []).filter((t) => t !== 'text').join('\n'),
      lastIsToolResult,
    };
  }
  return { main: false, text: '', lastUserText: '', lastIsToolResult: false };
}

/**
 * Chat Completions (Qwen Code, Copilot CLI, pi, Droid): JSON or SSE chunks ending in `[DONE]`; a
 * shell call goes to the request's shell tool (`run_shell_command` for Qwen, `bash` for Copilot
 * and pi, `Execute` for Droid).
 */
function chatShellTool(req: RecordedRequest): string {
  const names: string[] = (req.body?.tools ?? []).map((t: any) => t?.function?.name);
  return names.find((n) => n === 'bash' || n === 'Execute') ?? 'run_shell_command';
}

function chatReply(res: ServerResponse, req: RecordedRequest, reply: Answer): void {
  const id = `chatcmpl-${randomUUID().replace(/-/g, '')}`;
  const model = typeof req.body?.model === 'string' ? req.body.model : 'stand-in';
  const created = Math.floor(Date.now() / 1000);
  const text = reply.text || ('shell' in reply || 'tool' in reply ? '' : 'ok');
  const tool = chatShellTool(req);
  // Droid's Execute refuses a call without its summary and risk fields.
  const args = (command: string) =>
    tool === 'Execute'
      ? { command, summary: 'Publish the task pointer', riskLevelReason: 'It writes one record into the baton store.', riskLevel: 'low' }
      : { command, description: 'publish the task pointer' };
  const call = 'shell' in reply ? { name: tool, arguments: JSON.stringify(args(reply.shell)) } : 'tool' in reply ? { name: reply.tool, arguments: JSON.stringify(reply.input) } : undefined;
  const calls = call ? [{ index: 0, id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, type: 'function', function: call }] : undefined;
  const finish = calls ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };
  if (!req.stream) {
    json(res, 200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content: text || null, ...(calls ? { tool_calls: calls } : {}) }, finish_reason: finish }], usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  const chunk = (delta: unknown, finish_reason: string | null, extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
  chunk({ role: 'assistant', content: text }, null);
  if (calls) chunk({ tool_calls: calls }, null);
  chunk({}, finish, { usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  for (const e of events) res.write((e.event ? `event: ${e.event}\n` : '') + `data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const s = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
  res.end(s);
}

type Answer = Exclude<Reply, { hang: true }>;

function anthropicReply(res: ServerResponse, req: RecordedRequest, reply: Answer): void {
  const model = typeof req.body?.model === 'string' ? req.body.model : 'claude-sonnet-4-5';
  const id = `msg_${randomUUID().replace(/-/g, '')}`;
  const usage = { input_tokens: 12, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const blocks: any[] = [];
  if (reply.text) blocks.push({ type: 'text', text: reply.text });
  if ('shell' in reply) {
    blocks.push({ type: 'tool_use', id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`, name: 'Bash', input: { command: reply.shell, description: 'Run a shell command' } });
  }
  if ('tool' in reply) blocks.push({ type: 'tool_use', id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`, name: reply.tool, input: reply.input });
  if (blocks.length === 0) blocks.push({ type: 'text', text: 'ok' });
  const stopReason = 'shell' in reply || 'tool' in reply ? 'tool_use' : 'end_turn';
  if (!req.stream) {
    json(res, 200, { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage });
    return;
  }
  const events: Array<{ event: string; data: unknown }> = [
    { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } } },
  ];
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } } });
    } else {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } } });
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } } });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 6 } } });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  sse(res, events);
}

function geminiReply(res: ServerResponse, req: RecordedRequest, reply: Answer): void {
  const model = /models\/([^:/?]+)/.exec(req.url)?.[1] ?? 'gemini-2.5-flash';
  const parts: any[] = [];
  if (reply.text) parts.push({ text: reply.text });
  if ('shell' in reply) parts.push({ functionCall: { name: 'run_shell_command', args: { command: reply.shell, description: 'Run a shell command' } } });
  if ('tool' in reply) parts.push({ functionCall: { name: reply.tool, args: reply.input } });
  if (parts.length === 0) parts.push({ text: 'ok' });
  const body = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 },
    modelVersion: model,
    responseId: randomUUID(),
  };
  if (req.stream) sse(res, [{ data: body }]);
  else json(res, 200, body);
}

/** The Responses API (Codex): always streamed; a shell call is an `exec_command` function call. */
function openaiReply(res: ServerResponse, req: RecordedRequest, reply: Answer): void {
  const id = `resp_${randomUUID().replace(/-/g, '')}`;
  const items: any[] = [];
  // A reasoning summary the agent may show (Responses API `reasoning` item, no encrypted content).
  if ('reasoning' in reply && reply.reasoning) items.push({ type: 'reasoning', id: `rs_${randomUUID().replace(/-/g, '')}`, summary: [{ type: 'summary_text', text: reply.reasoning }] });
  if (reply.text) items.push({ type: 'message', id: `msg_${randomUUID().replace(/-/g, '')}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] });
  if ('shell' in reply) items.push({ type: 'function_call', id: `fc_${randomUUID().replace(/-/g, '')}`, call_id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, name: 'exec_command', arguments: JSON.stringify({ cmd: reply.shell }), status: 'completed' });
  if ('tool' in reply) items.push({ type: 'function_call', id: `fc_${randomUUID().replace(/-/g, '')}`, call_id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, name: reply.tool, arguments: JSON.stringify(reply.input), status: 'completed' });
  if (items.length === 0) items.push({ type: 'message', id: `msg_${randomUUID().replace(/-/g, '')}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] });
  const model = typeof req.body?.model === 'string' ? req.body.model : 'gpt-5';
  const base = { id, object: 'response', model, created_at: Math.floor(Date.now() / 1000) };
  const events: Array<{ event: string; data: unknown }> = [{ event: 'response.created', data: { type: 'response.created', response: { ...base, status: 'in_progress', output: [] } } }];
  items.forEach((item, output_index) => {
    events.push({ event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress' } } });
    if (item.type === 'message') events.push({ event: 'response.output_text.delta', data: { type: 'response.output_text.delta', item_id: item.id, output_index, content_index: 0, delta: item.content[0].text } });
    events.push({ event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index, item } });
  });
  const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 };
  events.push({ event: 'response.completed', data: { type: 'response.completed', response: { ...base, status: 'completed', output: items, usage } } });
  sse(res, events);
}

/** A JSON answer for Gemini's structured side requests (next-speaker checks, routing, loop checks). */
function geminiStructured(req: RecordedRequest): string | undefined {
  const cfg = req.body?.generationConfig;
  if (!cfg || (cfg.responseMimeType !== 'application/json' && !cfg.responseSchema && !cfg.responseJsonSchema)) return undefined;
  const schema = cfg.responseJsonSchema ?? cfg.responseSchema ?? {};
  const props = Object.keys(schema?.properties ?? {});
  const out: Record<string, unknown> = {};
  for (const p of props) {
    if (p === 'next_speaker') out[p] = 'user';
    else if (p === 'model_choice') out[p] = 'flash';
    else if (/confidence/i.test(p)) out[p] = 0;
    else if (/^is|^should/.test(p)) out[p] = false;
    else out[p] = 'n/a';
  }
  return JSON.stringify(out);
}

export class ModelServer {
  readonly requests: RecordedRequest[] = [];
  script: Script = () => undefined;
  private readonly hanging: ServerResponse[] = [];
  private server: Server | undefined;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    return new Promise((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => {
        this.port = (this.server!.address() as AddressInfo).port;
        resolve(this);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      for (const res of this.hanging.splice(0)) res.destroy();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  /** Requests of the main conversation (the ones that carry tools). */
  mainRequests(api?: Api): RecordedRequest[] {
    return this.requests.filter((r) => r.main && (!api || r.api === api));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const url = req.url ?? '/';
      const path = url.split('?')[0];
      const api: Api = path.startsWith('/v1/messages') ? 'anthropic' : /\/models\/[^/]+:/.test(path) ? 'gemini' : path.endsWith('/responses') ? 'openai' : path.endsWith('/chat/completions') ? 'chat' : 'other';
      const stream = api === 'gemini' ? path.includes(':streamGenerateContent') : body?.stream === true;
      const rec: RecordedRequest = { api, method: req.method ?? 'GET', url, headers: req.headers, raw, body, stream, ...describe(api, body) };
      this.requests.push(rec);
      try {
        this.answer(rec, path, res);
      } catch (e) {
        json(res, 500, { error: { type: 'stand_in_error', message: String(e) } });
      }
    });
  }

  private answer(rec: RecordedRequest, path: string, res: ServerResponse): void {
    const reply = rec.main ? this.script(rec) : undefined;
    if (reply && 'hang' in reply) {
      // Never answer: the agent waits until it is killed (or the server closes).
      this.hanging.push(res);
      return;
    }
    const scripted = (fallback: string): Answer => (reply as Answer | undefined) ?? { text: fallback };
    if (rec.api === 'anthropic') {
      if (path.endsWith('/count_tokens')) json(res, 200, { input_tokens: 12 });
      else anthropicReply(res, rec, scripted(rec.main ? 'ok' : 'Stand-in title'));
    } else if (rec.api === 'gemini') {
      const structured = rec.main ? undefined : geminiStructured(rec);
      if (path.endsWith(':countTokens')) json(res, 200, { totalTokens: 12 });
      else if (path.endsWith(':embedContent')) json(res, 200, { embedding: { values: [0] } });
      else geminiReply(res, rec, structured !== undefined ? { text: structured } : scripted('ok'));
    } else if (rec.api === 'openai') {
      openaiReply(res, rec, scripted('ok'));
    } else if (rec.api === 'chat') {
      chatReply(res, rec, scripted('ok'));
    } else if (rec.method === 'HEAD') {
      res.writeHead(200);
      res.end();
    } else {
      json(res, 404, { error: { message: `stand-in model server: nothing at ${rec.method} ${rec.url}` } });
    }
  }
}

export interface ToolResult {
  /** The tool's name as the agent called it (found through the call's id where the API carries only that). */
  name: string | undefined;
  /** The agent marked the result an error (Anthropic `is_error`, Gemini `response.error`); Chat Completions and Responses carry no such flag. */
  isError: boolean | undefined;
  /** What the model reads of it. */
  text: string;
}

/** The tool results of a request's latest turn, whichever API carried them. */
export function toolResults(req: RecordedRequest): ToolResult[] {
  const body = req.body;
  if (req.api === 'anthropic') {
    const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const last = msgs.at(-1);
    if (last?.role !== 'user' || !Array.isArray(last.content)) return [];
    const calls = new Map<string, string>();
    for (const m of msgs) for (const b of Array.isArray(m?.content) ? m.content : []) if (b?.type === 'tool_use') calls.set(b.id, b.name);
    return last.content.filter((b: any) => b?.type === 'tool_result').map((b: any) => ({ name: calls.get(b.tool_use_id), isError: b.is_error === true, text: turnText([b]) }));
  }
  if (req.api === 'gemini') {
    const last = (Array.isArray(body?.contents) ? body.contents : []).at(-1);
    const parts: any[] = last?.role === 'user' && Array.isArray(last.parts) ? last.parts : [];
    return parts
      .filter((p) => p?.functionResponse)
      .map((p) => {
        const r = p.functionResponse.response ?? {};
        const isError = r.error !== undefined;
        const out = isError ? r.error : r.output;
        return { name: p.functionResponse.name, isError, text: typeof out === 'string' ? out : JSON.stringify(r) };
      });
  }
  if (req.api === 'chat') {
    const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const turn = msgs.slice(msgs.map((m: any) => m?.role).lastIndexOf('assistant'));
    const calls = new Map<string, string>((turn[0]?.tool_calls ?? []).map((c: any) => [c.id, c.function?.name]));
    return turn.filter((m) => m?.role === 'tool').map((m) => ({ name: calls.get(m.tool_call_id), isError: undefined, text: collectText(m.content ?? [], []).filter((t) => t !== 'text').join('\n') }));
  }
  if (req.api === 'openai') {
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    const calls = new Map<string, string>(input.filter((i) => i?.type === 'function_call').map((i) => [i.call_id, i.name]));
    const tail = input.slice(input.map((i) => i?.type === 'function_call_output').lastIndexOf(false) + 1);
    return tail.map((i) => ({ name: calls.get(i.call_id), isError: undefined, text: typeof i.output === 'string' ? i.output : JSON.stringify(i.output) }));
  }
  return [];
}
