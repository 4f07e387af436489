// `baton verify` runs every installed entry as configured under BATON_VERIFY=1 and leaves
// every byte of the store unchanged, even with a real open episode it could have closed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { BIN, agentWorld, baton, treeHash } from './helpers.ts';

test('verify: every entry of every provider ok, and the store is byte-identical afterwards', () => {
  const { project: proj, store, env } = agentWorld({ BATON_BIN: BIN });
  for (const [p, scope] of [
    ['claude', 'project'],
    ['claude', 'user'],
    ['gemini', 'project'],
    ['codex', 'project'],
  ]) {
    assert.equal(baton(['install', p, '--scope', scope], { env, cwd: proj }).code, 0);
  }
  // A real session with an open episode and a CLEAN-or-not pointer: verify must not touch it.
  const sid = randomUUID();
  baton(['hook', 'claude'], { env, input: JSON.stringify({ session_id: sid, hook_event_name: 'SessionStart', source: 'startup', cwd: proj }) });
  baton(['hook', 'claude'], { env, input: JSON.stringify({ session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'x', cwd: proj }) });
  const before = treeHash(store);
  const r = baton(['verify', '--json'], { env: { ...env, BATON_SESSION: sid }, cwd: proj });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(r.json.ok, true);
  // Claude Code, Gemini CLI, Codex: four events and the turn end (Stop, AfterAgent, Stop).
  assert.equal(r.json.entries.length, 5 + 5 + 5 + 5);
  for (const e of r.json.entries) {
    assert.equal(e.ok, true, JSON.stringify(e));
    assert.ok(Array.isArray(e.would_write));
  }
  const end = r.json.entries.find((e: any) => e.provider === 'claude' && e.event === 'SessionEnd');
  assert.equal(end.budget_ms, 1500);
  const writes = (ev: string) => r.json.entries.find((e: any) => e.provider === 'claude' && e.event === ev).would_write.map((w: any) => w.write);
  assert.ok(writes('SessionStart').includes('episode.opened'), 'it would have opened an episode in the real session, and did not');
  assert.ok(writes('UserPromptSubmit').includes('prompt.submitted'));
  assert.equal(treeHash(store), before);
});

test('verify fails an entry whose command cannot reach baton, and a store nothing is installed for', () => {
  const { project: proj, store, env } = agentWorld({ PATH: '/usr/bin:/bin', BATON_BIN: undefined });
  const none = baton(['verify'], { env, cwd: proj });
  assert.equal(none.code, 2);
  assert.match(none.stdout, /baton install/);
  assert.equal(baton(['install', 'claude', '--scope', 'project'], { env, cwd: proj }).code, 0);
  const r = baton(['verify', 'claude', '--json'], { env, cwd: proj });
  assert.equal(r.code, 2);
  assert.ok(r.json.entries.every((e: any) => !e.ok && /did not report a verify run/.test(e.problems.join(' '))));
  assert.equal(fs.existsSync(store), false);
});

test('verify for a moved checkout: cannot find baton at PATH, with the install --force that fixes it', () => {
  const w = agentWorld();
  assert.equal(baton(['install', 'claude'], { env: w.env, cwd: w.project }).code, 0);
  const file = `${w.home}/.claude/settings.json`;
  const moved = `${w.root}/old-checkout/bin/baton.cjs`;
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll(BIN, moved));
  const r = baton(['verify', 'claude', '--json'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 2);
  for (const e of r.json.entries) {
    assert.equal(e.ok, false);
    assert.deepEqual(e.problems, [`cannot find baton at ${moved} — run \`baton install claude --scope user --force\` from the baton you use now`]);
  }
  assert.doesNotMatch(baton(['verify', 'claude'], { env: w.env, cwd: w.project }).stdout, /node:internal|loader/);
});

test('verify when the node an entry names is gone: cannot find node at PATH, with the install --force that fixes it', () => {
  const w = agentWorld();
  assert.equal(baton(['install', 'gemini'], { env: w.env, cwd: w.project }).code, 0);
  const file = `${w.home}/.gemini/settings.json`;
  const gone = `${w.root}/old-node/bin/node`;
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll(process.execPath, gone));
  const r = baton(['verify', 'gemini', '--json'], { env: w.env, cwd: w.project });
  assert.equal(r.code, 2);
  assert.ok(r.json.entries.length > 0);
  for (const e of r.json.entries) assert.deepEqual(e.problems, [`cannot find node at ${gone} — run \`baton install gemini --scope user --force\` from the baton you use now`]);
});
