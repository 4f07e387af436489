// Codex runs unmanaged hooks only once the user trusted them (`/hooks`, recorded under
// [hooks.state."<file>:<event>:<group>:<handler>"] in ~/.codex/config.toml): status, verify
// and doctor say `wired, not trusted` until that record is there, and `wired` after.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { codexHookKey } from '../src/providers/codex-trust.ts';
import { type AgentWorld, BIN, agentWorld, baton } from './helpers.ts';

const EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd', 'Stop'];

function trustRecord(w: AgentWorld, codexHome: string, opts: { disabled?: string } = {}): void {
  const file = join(w.home, '.codex', 'hooks.json');
  const lines = EVENTS.flatMap((ev) => [
    `[hooks.state.${JSON.stringify(codexHookKey(file, ev, 0, 0))}]`,
    'trusted_hash = "sha256:0000000000000000000000000000000000000000000000000000000000000000"',
    ...(opts.disabled === ev ? ['enabled = false'] : []),
    '',
  ]);
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(join(codexHome, 'config.toml'), `model = "gpt-5"\n\n[projects."/x"]\ntrust_level = "trusted"\n\n${lines.join('\n')}`);
}

const row = (r: { json: { rows: { row: string; state: string; trusted: boolean | null }[] } }, name: string) => r.json.rows.find((x) => x.row === name)!;

test('the key is the file, the event in snake case, the group and the handler', () => {
  assert.equal(codexHookKey('/h/.codex/hooks.json', 'UserPromptSubmit', 0, 1), '/h/.codex/hooks.json:user_prompt_submit:0:1');
  assert.equal(codexHookKey('/h/.codex/hooks.json', 'PreCompact', 2, 0), '/h/.codex/hooks.json:pre_compact:2:0');
});

test('codex installed, no trust record: status, verify and doctor say wired, not trusted, with the /hooks hint', () => {
  const w = agentWorld({ CODEX_HOME: undefined, BATON_BIN: BIN });
  assert.equal(baton(['install', 'codex'], { env: w.env, cwd: w.project }).code, 0);
  const st = baton(['status', '--json'], { env: w.env, cwd: w.project });
  assert.equal(row(st, 'codex').state, 'wired');
  assert.equal(row(st, 'codex').trusted, false);
  assert.equal(row(st, 'claude').trusted, null);
  const text = baton(['status'], { env: w.env, cwd: w.project }).stdout;
  assert.match(text, /^codex +wired, not trusted +user .*open \/hooks in Codex and trust the baton entries$/m);
  const v = baton(['verify', 'codex', '--json'], { env: w.env, cwd: w.project });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.deepEqual(
    v.json.entries.map((e: { trusted: boolean }) => e.trusted),
    [false, false, false, false, false],
  );
  assert.match(baton(['verify', 'codex'], { env: w.env, cwd: w.project }).stdout, /ok, not trusted .*\/hooks/);
  const d = baton(['doctor', '--json'], { env: w.env, cwd: w.project });
  assert.ok(d.json.problems.some((p: { message: string; fix: string }) => /^codex: wired, not trusted/.test(p.message) && /\/hooks/.test(p.fix)), JSON.stringify(d.json.problems));
  assert.match(baton(['doctor'], { env: w.env, cwd: w.project }).stdout, /codex=wired,not trusted/);
});

test('with the trust record in ~/.codex/config.toml (or $CODEX_HOME): wired; a disabled entry is not trusted', () => {
  const w = agentWorld({ CODEX_HOME: undefined, BATON_BIN: BIN });
  assert.equal(baton(['install', 'codex'], { env: w.env, cwd: w.project }).code, 0);
  trustRecord(w, join(w.home, '.codex'));
  const st = baton(['status', '--json'], { env: w.env, cwd: w.project });
  for (const name of ['codex', 'codex:session', 'codex:pointer']) assert.equal(row(st, name).trusted, true, name);
  assert.match(baton(['status'], { env: w.env, cwd: w.project }).stdout, /^codex +wired +user/m);
  assert.ok(baton(['verify', 'codex', '--json'], { env: w.env, cwd: w.project }).json.entries.every((e: { trusted: boolean }) => e.trusted));
  const d = baton(['doctor', '--json'], { env: w.env, cwd: w.project });
  assert.ok(!d.json.problems.some((p: { message: string }) => /not trusted/.test(p.message)));
  // The prompt row needs UserPromptSubmit: disabled there, the row is not trusted; the session row is.
  trustRecord(w, join(w.home, '.codex'), { disabled: 'UserPromptSubmit' });
  const st2 = baton(['status', '--json'], { env: w.env, cwd: w.project });
  assert.equal(row(st2, 'codex').trusted, false);
  assert.equal(row(st2, 'codex:session').trusted, true);
  // CODEX_HOME moves the config: the record in ~/.codex no longer counts.
  const elsewhere = join(w.root, 'codex-home');
  fs.mkdirSync(elsewhere);
  const st3 = baton(['status', '--json'], { env: { ...w.env, CODEX_HOME: elsewhere }, cwd: w.project });
  assert.equal(row(st3, 'codex:session').trusted, false);
});
