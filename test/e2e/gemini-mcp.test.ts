// Gemini CLI 0.61.0, the real program, offline against the stand-in model, using baton's MCP
// server: `baton install gemini` (hooks) and `baton install gemini --aspects mcp` (mcpServers
// in ~/.gemini/settings.json) in a temporary HOME, so Gemini CLI starts `baton mcp` itself
// over stdio. Gemini names an MCP tool mcp_<server>_<tool>: the model calls
// `mcp_baton_pointer_publish`; the pointer changes on disk; a stale publish comes back to the
// model as an error response carrying isError and the code, and changes nothing. One story
// in order: each test continues the session the previous ones left.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AgentRun, agentsInstalled, assertAgentRan, GEMINI_VERSION, gemini, newUser, prepareGemini, removeUsers, type User, userBaton } from './agents.ts';
import { fileDigests, type McpPlan, mcpPublisher, publishes, resultOf, watchingStore } from './mcp-agent.ts';
import { ModelServer, type RecordedRequest } from './model-server.ts';
import { newestPointerBlock, receiptIn } from './pointer-agent.ts';
import { mainSince } from './scenario.ts';

const installed = agentsInstalled().gemini;
const skip = installed ? false : `Gemini CLI ${GEMINI_VERSION} is not installed in .e2e/agents (run npm run test:e2e)`;

/** Gemini CLI's name for baton's pointer_publish: mcp_<server>_<tool>. */
const TOOL = 'mcp_baton_pointer_publish';
/** In -p mode Gemini offers the model only the tools that need no confirmation: allow the server's tools (or set trust: true on its entry). */
const ALLOW = ['--allowed-tools', 'mcp_baton_*'];
const BATON_TOOLS = ['context_append', 'pointer_get', 'pointer_publish', 'ref_capture', 'ref_list', 'search', 'session_list', 'session_log'];

const assertRan = (run: AgentRun, what: string): void => assertAgentRan('gemini', run, what);

/** The function names a Gemini request declares to the model. */
function declared(r: RecordedRequest): string[] {
  return (r.body?.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => String(f.name)));
}

describe(`Gemini CLI ${GEMINI_VERSION} calling baton's MCP server (offline)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: McpPlan = {};
  let hashAt: Map<RecordedRequest, Record<string, string>>;
  let id = '';
  let first: { generation: string; revision: number } | undefined;
  const PTR1 = 'Goal: publish through MCP from gemini\nNext: a stale publish';
  const PTR2 = 'Goal: publish through MCP from gemini\nNext: done after the retry';

  const pointer = () => {
    const r = userBaton(['pointer', 'show', id, '--json'], user);
    assert.equal(r.code, 0, r.stderr);
    return r.json;
  };

  before(async () => {
    server = await new ModelServer().start();
    user = newUser();
    prepareGemini(user);
    // The sessions' folders: Gemini CLI 0.61.0 fires its PreCompress hook between a tool call
    // and the request that carries its result, and that hook run rewrites its last-run hint
    // (<home>/hooks/gemini.pointer.last) outside them.
    const watch = watchingStore(
      mcpPublisher(TOOL, () => plan),
      () => fileDigests(join(user.batonHome, 'sessions')),
    );
    server.script = watch.script;
    hashAt = watch.hashAt;
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install gemini, then --aspects mcp: hooks and mcpServers.baton in ~/.gemini/settings.json (auth kept), and baton verify starts the server', () => {
    const hooks = userBaton(['install', 'gemini'], user);
    assert.equal(hooks.code, 0, `install failed: ${hooks.stderr}${hooks.stdout}`);
    const mcp = userBaton(['install', 'gemini', '--aspects', 'mcp'], user);
    assert.equal(mcp.code, 0, `install --aspects mcp failed: ${mcp.stderr}${mcp.stdout}`);
    const settings = JSON.parse(fs.readFileSync(join(user.home, '.gemini', 'settings.json'), 'utf8'));
    assert.equal(settings.security?.auth?.selectedType, 'gemini-api-key');
    assert.ok(settings.hooks?.BeforeAgent, 'the hooks are still there');
    // `mcp`, then the store it was installed for (not the default one: install names it).
    assert.deepEqual(settings.mcpServers?.baton?.args?.slice(1), ['mcp', '--home', user.batonHome]);
    const v = userBaton(['verify', 'gemini'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
  });

  test('in -p mode without an allowance, Gemini CLI does not offer the model any of baton\'s MCP tools', async () => {
    plan = {};
    const from = server.requests.length;
    const run = await gemini(['-p', 'Look at the MCP tools'], user, server);
    assertRan(run, 'no allowance');
    const main = mainSince(server.requests, from);
    assert.ok(main.length >= 1);
    id = newestPointerBlock(main[0].text)!.fields.SESSION_ID;
    assert.match(id, /^[0-9a-f-]{36}$/);
    const names = declared(main[0]);
    assert.ok(names.length > 0, 'the request declares tools');
    assert.deepEqual(
      names.filter((n) => n.startsWith('mcp_baton_')),
      [],
    );
  });

  test(`with --allowed-tools mcp_baton_*, the model calls ${TOOL} with the CAS values of the block the hooks showed it: the receipt comes back and the pointer is on disk (surface mcp)`, async () => {
    plan = { publish: PTR1 };
    const from = server.requests.length;
    const run = await gemini(['--resume', id, '-p', 'Publish through MCP', ...ALLOW], user, server);
    assertRan(run, 'publish');
    const main = mainSince(server.requests, from);
    assert.equal(main.length, 2, 'a prompt request and a tool-result request');
    assert.deepEqual(
      declared(main[0])
        .filter((n) => n.startsWith('mcp_baton_'))
        .sort(),
      BATON_TOOLS.map((t) => `mcp_baton_${t}`),
    );
    const shown = newestPointerBlock(main[0].text)!;
    assert.equal(shown.fields.SESSION_ID, id);

    const result = resultOf(main[1], TOOL);
    assert.equal(result.isError, false, result.text);
    const receipt = receiptIn(result.text);
    assert.equal(receipt?.ok, true, result.text);
    assert.equal(receipt.session_id, id, 'the server found the agent session from the episode its hooks opened');
    assert.equal(receipt.revision, Number(shown.fields.REVISION) + 1);
    assert.match(run.stdout, /^TOOL_OK /);

    const p = pointer();
    assert.equal(p.pointer_text, PTR1);
    assert.equal(p.status, 'CLEAN');
    assert.equal(p.revision, receipt.revision);
    assert.equal(p.generation, receipt.generation);
    first = { generation: receipt.generation, revision: receipt.revision };
    const published = publishes(user, id);
    assert.equal(published.length, 1);
    assert.equal(published[0].surface, 'mcp', 'the write came through the MCP server');
    assert.equal(published[0].actor, 'agent');
  });

  test('a stale publish (the revision of the last receipt, before the next prompt marked it DIRTY) comes back as an error carrying isError and STALE_REVISION and changes nothing; the retry with the values it names succeeds', async () => {
    assert.ok(first);
    plan = { publish: PTR2, stale: first, retry: true };
    const earlier = publishes(user, id).length;
    const from = server.requests.length;
    const run = await gemini(['--resume', id, '-p', 'Publish again from memory', ...ALLOW], user, server);
    assertRan(run, 'stale publish');
    const main = mainSince(server.requests, from);
    assert.equal(main.length, 3, 'the prompt, the refusal, the retry result');
    const shown = newestPointerBlock(main[0].text)!;
    assert.equal(shown.fields.STATUS, 'DIRTY');
    assert.equal(Number(shown.fields.REVISION), first.revision + 1, 'the prompt moved the revision past the one the model remembers');

    // Gemini hands the model the server's whole result in `response.error`: the text, the
    // structured content with the code, and isError.
    const refusal = resultOf(main[1], TOOL);
    assert.equal(refusal.isError, true);
    assert.match(refusal.text, /STALE_REVISION: the pointer is now generation \S+, revision \d+/);
    assert.match(refusal.text, /"code":"STALE_REVISION"/);
    assert.match(refusal.text, /"isError":true/);
    assert.deepEqual(hashAt.get(main[1]), hashAt.get(main[0]), 'the refused publish left the store as it was');

    const retried = resultOf(main[2], TOOL);
    assert.equal(retried.isError, false, retried.text);
    assert.equal(receiptIn(retried.text)?.revision, first.revision + 2);
    const p = pointer();
    assert.equal(p.pointer_text, PTR2);
    assert.equal(p.status, 'CLEAN');
    assert.equal(p.revision, first.revision + 2);
    assert.equal(publishes(user, id).length, earlier + 1, 'only the retry published');
  });
});
