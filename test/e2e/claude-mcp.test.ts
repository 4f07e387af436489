// Claude Code 2.1.328, the real program, offline against the stand-in model, using baton's
// MCP server: `baton install claude` (hooks) and `baton install claude --aspects mcp` (the
// server in ~/.claude.json) in a temporary HOME, so Claude Code starts `baton mcp` itself
// over stdio. The model calls `mcp__baton__pointer_publish`; the pointer changes on disk; a
// stale publish comes back to the model as an error result with its code and changes
// nothing. One story in order: each test continues the session the previous ones left.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN } from '../helpers.ts';
import { type AgentRun, agentsInstalled, assertAgentRan, CLAUDE_VERSION, claude, newUser, removeUsers, type User, userBaton } from './agents.ts';
import { fileDigests, type McpPlan, mcpPublisher, publishes, resultOf, watchingStore } from './mcp-agent.ts';
import { ModelServer, type RecordedRequest } from './model-server.ts';
import { newestPointerBlock, receiptIn } from './pointer-agent.ts';
import { mainSince } from './scenario.ts';

const installed = agentsInstalled().claude;
const skip = installed ? false : `Claude Code ${CLAUDE_VERSION} is not installed in .e2e/agents (run npm run test:e2e)`;

/** Claude Code's name for baton's pointer_publish: mcp__<server>__<tool>. */
const TOOL = 'mcp__baton__pointer_publish';
/** In -p mode an MCP tool runs only when allowed: `mcp__baton` allows every tool of the server. */
const ALLOW = ['--allowedTools', 'mcp__baton'];

const assertRan = (run: AgentRun, what: string): void => assertAgentRan('claude', run, what);

describe(`Claude Code ${CLAUDE_VERSION} calling baton's MCP server (offline)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let plan: McpPlan = {};
  let hashAt: Map<RecordedRequest, Record<string, string>>;
  let id = '';
  let first: { generation: string; revision: number } | undefined;
  const PTR1 = 'Goal: publish through MCP\nNext: a stale publish';
  const PTR2 = 'Goal: publish through MCP\nNext: done after the retry';

  const pointer = () => {
    const r = userBaton(['pointer', 'show', id, '--json'], user);
    assert.equal(r.code, 0, r.stderr);
    return r.json;
  };

  before(async () => {
    server = await new ModelServer().start();
    user = newUser();
    const watch = watchingStore(
      mcpPublisher(TOOL, () => plan),
      () => fileDigests(user.batonHome),
    );
    server.script = watch.script;
    hashAt = watch.hashAt;
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install claude, then --aspects mcp: the hooks in ~/.claude/settings.json, the baton server in ~/.claude.json, and baton verify starts it', () => {
    const hooks = userBaton(['install', 'claude'], user);
    assert.equal(hooks.code, 0, `install failed: ${hooks.stderr}${hooks.stdout}`);
    const mcp = userBaton(['install', 'claude', '--aspects', 'mcp'], user);
    assert.equal(mcp.code, 0, `install --aspects mcp failed: ${mcp.stderr}${mcp.stdout}`);
    const entry = JSON.parse(fs.readFileSync(join(user.home, '.claude.json'), 'utf8')).mcpServers?.baton;
    assert.ok(entry, 'no mcpServers.baton in ~/.claude.json');
    // `mcp`, then the store it was installed for (not the default one: install names it).
    assert.deepEqual(entry.args.slice(1), ['mcp', '--home', user.batonHome]);
    const v = userBaton(['verify', 'claude'], user);
    assert.equal(v.code, 0, `verify failed:\n${v.stdout}\n${v.stderr}`);
  });

  test('in -p mode without an allowance, Claude Code refuses the MCP call itself: the model is told permission was not granted, and the store is unchanged', async () => {
    plan = { publish: 'Goal: never written' };
    const from = server.requests.length;
    const run = await claude(['-p', 'Try the MCP tool', '--output-format', 'json'], user, server);
    assertRan(run, 'no allowance');
    id = JSON.parse(run.stdout).session_id;
    const main = mainSince(server.requests, from);
    assert.equal(main.length, 2, 'a prompt request and a tool-result request');
    const result = resultOf(main[1], TOOL);
    assert.equal(result.isError, true);
    assert.match(result.text, /permission/i);
    assert.deepEqual(hashAt.get(main[1]), hashAt.get(main[0]), 'nothing was written between the call and its result');
    assert.equal(publishes(user, id).length, 0);
  });

  test(`the model calls ${TOOL} with the CAS values of the block the hooks showed it: Claude Code starts baton mcp, the receipt comes back, and the pointer is on disk (surface mcp)`, async () => {
    plan = { publish: PTR1 };
    const from = server.requests.length;
    const run = await claude(['--resume', id, '-p', 'Publish through MCP', ...ALLOW, '--output-format', 'json'], user, server);
    assertRan(run, 'publish');
    const main = mainSince(server.requests, from);
    assert.equal(main.length, 2, 'a prompt request and a tool-result request');
    // Claude Code lists its MCP tools to the model (as deferred tools) under their mcp__ names.
    assert.ok(main[0].raw.includes(TOOL), `the first request does not name ${TOOL}`);
    const shown = newestPointerBlock(main[0].text)!;
    assert.equal(shown.fields.SESSION_ID, id);

    const result = resultOf(main[1], TOOL);
    assert.equal(result.isError, false, result.text);
    const receipt = receiptIn(result.text);
    assert.equal(receipt?.ok, true, result.text);
    assert.equal(receipt.session_id, id, 'the server found the agent session from the episode its hooks opened');
    assert.equal(receipt.revision, Number(shown.fields.REVISION) + 1);
    assert.match(JSON.parse(run.stdout).result, /^TOOL_OK /);

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

  test('a stale publish (the revision of the last receipt, before the next prompt marked it DIRTY) comes back as is_error with STALE_REVISION and changes nothing; the retry with the values it names succeeds', async () => {
    assert.ok(first);
    plan = { publish: PTR2, stale: first, retry: true };
    const earlier = publishes(user, id).length;
    const from = server.requests.length;
    const run = await claude(['--resume', id, '-p', 'Publish again from memory', ...ALLOW, '--output-format', 'json'], user, server);
    assertRan(run, 'stale publish');
    const main = mainSince(server.requests, from);
    assert.equal(main.length, 3, 'the prompt, the refusal, the retry result');
    const shown = newestPointerBlock(main[0].text)!;
    assert.equal(shown.fields.STATUS, 'DIRTY');
    assert.equal(Number(shown.fields.REVISION), first.revision + 1, 'the prompt moved the revision past the one the model remembers');

    const refusal = resultOf(main[1], TOOL);
    assert.equal(refusal.isError, true);
    assert.match(refusal.text, /^STALE_REVISION: the pointer is now generation \S+, revision \d+/);
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

describe(`Claude Code ${CLAUDE_VERSION} with baton's MCP server in the project's .mcp.json (offline)`, { skip }, () => {
  let server: ModelServer;
  let user: User;
  let bin = '';
  const PTR = 'Goal: publish through the project server\nNext: nothing';

  before(async () => {
    server = await new ModelServer().start();
    server.script = mcpPublisher(TOOL, () => ({ publish: PTR }));
    user = newUser();
    // The project scope runs `baton mcp` from PATH, as a shared file must: put a `baton` there.
    bin = join(user.home, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(join(bin, 'baton'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
  });
  after(async () => {
    await server?.close();
    removeUsers();
  });

  test('baton install claude --scope project --aspects mcp writes .mcp.json; with permissions.allow ["mcp__baton"] in the user settings, a -p run publishes through the server (no approval step in -p)', async () => {
    assert.equal(userBaton(['install', 'claude'], user).code, 0);
    const mcp = userBaton(['install', 'claude', '--scope', 'project', '--aspects', 'mcp'], user);
    assert.equal(mcp.code, 0, `install failed: ${mcp.stderr}${mcp.stdout}`);
    assert.deepEqual(JSON.parse(fs.readFileSync(join(user.project, '.mcp.json'), 'utf8')).mcpServers.baton, { command: 'baton', args: ['mcp'] });
    assert.equal(fs.existsSync(join(user.home, '.claude.json')), false, 'nothing in the user scope');
    // The allowance as a user's setting instead of --allowedTools.
    const file = join(user.home, '.claude', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, JSON.stringify({ ...settings, permissions: { allow: ['mcp__baton'] } }, null, 2));

    const run = await claude(['-p', 'Publish through the project server', '--output-format', 'json'], user, server, { env: { PATH: `${bin}:${process.env.PATH}` } });
    assertRan(run, 'project scope');
    const id = JSON.parse(run.stdout).session_id;
    const main = mainSince(server.requests, 0);
    assert.equal(main.length, 2, 'a prompt request and a tool-result request');
    const result = resultOf(main[1], TOOL);
    assert.equal(result.isError, false, result.text);
    assert.equal(receiptIn(result.text)?.ok, true, result.text);
    const p = userBaton(['pointer', 'show', id, '--json'], user).json;
    assert.equal(p.pointer_text, PTR);
    assert.equal(publishes(user, id)[0]?.surface, 'mcp');
  });
});
