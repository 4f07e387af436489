// The dispatcher: lenient payloads, isolated aspects, the prompt archive, output per provider.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { baton, readJsonl, tmpDir, treeHash } from './helpers.ts';

const run = (home: string, input: unknown, args: string[] = ['claude'], env: Record<string, string> = {}) =>
  baton(['hook', ...args], { home, input: typeof input === 'string' ? input : JSON.stringify(input), env });
const log = (home: string, id: string) => readJsonl(join(home, 'sessions', id, 'events.jsonl'));

test('isolation: the session aspect fails at start (a file where contexts/ should be) → the pointer context is still on stdout, exit 0, one stderr line', () => {
  const home = tmpDir();
  const sid = randomUUID();
  fs.mkdirSync(join(home, 'sessions', sid), { recursive: true });
  fs.writeFileSync(join(home, 'sessions', sid, 'contexts'), 'not a folder');
  const r = run(home, { session_id: sid, hook_event_name: 'SessionStart', source: 'startup', cwd: home });
  assert.equal(r.code, 0);
  assert.match(JSON.parse(r.stdout).hookSpecificOutput.additionalContext, /^TASK_POINTER_V2/);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^baton: hook session: [A-Z0-9]+ /);
  // The boundary is still recorded; only the frozen context is missing.
  const opened = log(home, sid).find((e) => e.type === 'episode.opened');
  assert.equal(opened.payload.context_file, null);
});

test('a payload without session_id or hook_event_name, or not JSON at all: one stderr line, exit 0, no stdout, nothing written', () => {
  const home = tmpDir();
  const before = treeHash(home);
  for (const input of [{ hook_event_name: 'SessionStart', source: 'startup' }, { session_id: 'abc', source: 'startup' }, 'not json', '', { session_id: '../etc', hook_event_name: 'SessionStart' }]) {
    const r = run(home, input);
    assert.equal(r.code, 0, JSON.stringify(input));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /^baton: hook /);
  }
  assert.equal(treeHash(home), before);
});

test('unknown fields are ignored and an unknown source is accepted', () => {
  const home = tmpDir();
  const sid = randomUUID();
  const r = run(home, { session_id: sid, hook_event_name: 'SessionStart', source: 'teleport', cwd: home, shiny_new_field: { a: 1 }, agent_id: 'x' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(JSON.parse(r.stdout).hookSpecificOutput.additionalContext, /^TASK_POINTER_V2/);
  assert.equal(log(home, sid).find((e) => e.type === 'episode.opened').payload.source, 'teleport');
  const u = run(home, { session_id: sid, hook_event_name: 'PostToolUse', cwd: home });
  assert.equal(u.code, 0);
  assert.equal(u.stdout, '');
  assert.match(u.stderr, /not one baton handles/);
});

test('the prompt archive: secrets redacted, digest, nothing on stdout from it', () => {
  const home = tmpDir();
  const sid = randomUUID();
  const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';
  const r = run(home, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: `use the key ${secret} please`, cwd: home }, ['claude', '--aspects', 'prompt']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  const p = log(home, sid).find((e) => e.type === 'prompt.submitted');
  assert.equal(p.actor, 'user');
  assert.equal(p.surface, 'hook:claude');
  assert.equal(p.payload.text, 'use the key <redacted> please');
  assert.match(p.payload.digest, /^[0-9a-f]{64}$/);
  assert.equal(p.payload.truncated, undefined);
  assert.equal(p.payload.episode, null, 'no episode open: the prompt belongs to none');
  assert.ok(!fs.readFileSync(join(home, 'sessions', sid, 'events.jsonl'), 'utf8').includes(secret));
});

test('the prompt archive cuts a prompt over 256 KiB and marks it truncated with original_bytes', () => {
  const home = tmpDir();
  const sid = randomUUID();
  const big = 'é'.repeat(200 * 1024); // 400 KiB of UTF-8
  assert.equal(run(home, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: big, cwd: home }, ['claude', '--aspects', 'prompt']).code, 0);
  const p = log(home, sid).find((e) => e.type === 'prompt.submitted').payload;
  assert.equal(p.truncated, true);
  assert.equal(p.original_bytes, 400 * 1024);
  assert.ok(Buffer.byteLength(p.text) <= 256 * 1024);
  assert.ok(Buffer.byteLength(p.text) > 255 * 1024);
  assert.ok(!p.text.includes('\ufffd'), 'cut on a character boundary');
});

test('--aspects chooses what runs: session-only writes no stdout; pointer-only archives no prompt', () => {
  const home = tmpDir();
  const sid = randomUUID();
  const s = run(home, { session_id: sid, hook_event_name: 'SessionStart', source: 'startup', cwd: home }, ['claude', '--aspects', 'session']);
  assert.equal(s.code, 0);
  assert.equal(s.stdout, '');
  assert.equal(log(home, sid).filter((e) => e.type === 'episode.opened').length, 1);
  const doc = fs.readdirSync(join(home, 'sessions', sid, 'contexts'));
  assert.match(fs.readFileSync(join(home, 'sessions', sid, 'contexts', doc[0]), 'utf8'), /nothing was injected: the pointer aspect is not enabled/);
  const p = run(home, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'hi', cwd: home }, ['claude', '--aspects', 'pointer']);
  assert.equal(p.code, 0);
  assert.match(JSON.parse(p.stdout).hookSpecificOutput.additionalContext, /^TASK_POINTER_V2/);
  assert.equal(log(home, sid).filter((e) => e.type === 'prompt.submitted').length, 0);
});

test('output per provider: Gemini JSON only, Codex plain text, both carrying the pointer context', () => {
  const home = tmpDir();
  const g = run(home, { session_id: randomUUID(), hook_event_name: 'BeforeAgent', prompt: 'x', cwd: home }, ['gemini']);
  assert.equal(g.code, 0, g.stderr);
  assert.equal(JSON.parse(g.stdout).hookSpecificOutput.hookEventName, 'BeforeAgent');
  const c = run(home, { session_id: randomUUID(), hook_event_name: 'SessionStart', source: 'startup', cwd: home, model: 'gpt-5' }, ['codex']);
  assert.equal(c.code, 0, c.stderr);
  assert.match(c.stdout, /^TASK_POINTER_V2/);
  const e = run(home, { session_id: randomUUID(), hook_event_name: 'PostToolUse', cwd: home }, ['codex']);
  assert.equal(e.code, 0);
  assert.equal(e.stdout, '');
  assert.match(e.stderr, /not one baton handles/);
});

test('the hook records when it last ran, per provider and aspect, for status', () => {
  const home = tmpDir();
  run(home, { session_id: randomUUID(), hook_event_name: 'SessionStart', source: 'startup', cwd: home });
  const st = baton(['status', '--json'], { home, env: { HOME: tmpDir() } });
  const row = st.json.rows.find((r: any) => r.row === 'claude:session');
  assert.equal(row.last_run.event, 'SessionStart');
  assert.equal(row.last_run.result, 'ok');
  assert.equal(st.json.rows.find((r: any) => r.row === 'claude').last_run, null);
  assert.equal(fs.statSync(join(home, 'hooks')).mode & 0o777, 0o700);
});

test('isolation: the prompt aspect fails (a log corrupt in the middle, WS201) → the pointer context is still on stdout, exit 0, one stderr line', () => {
  const home = tmpDir();
  const sid = randomUUID();
  const input = { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'one', cwd: home };
  run(home, input);
  // Make the pointer DIRTY-and-idle (a repeated prompt writes nothing), then corrupt the log.
  run(home, { session_id: sid, hook_event_name: 'UserPromptSubmit', prompt: 'two', cwd: home });
  const logPath = join(home, 'sessions', sid, 'events.jsonl');
  const lines = fs.readFileSync(logPath, 'utf8').split('\n');
  lines[0] = lines[0].replace('"title":"one"', '"title":"0ne"');
  fs.writeFileSync(logPath, lines.join('\n'));
  const r = run(home, { ...input, prompt: 'three' });
  assert.equal(r.code, 0);
  assert.match(JSON.parse(r.stdout).hookSpecificOutput.additionalContext, /^TASK_POINTER_V2/);
  const errs = r.stderr.trim().split('\n');
  assert.equal(errs.length, 1, r.stderr);
  assert.match(errs[0], /^baton: hook prompt: WS201 /);
});

test('the CLI route `baton --home DIR hook claude` runs the same hook', () => {
  const home = tmpDir();
  const sid = randomUUID();
  const r = baton(['--home', home, 'hook', 'claude', '--aspects', 'session,pointer'], {
    input: JSON.stringify({ session_id: sid, hook_event_name: 'SessionStart', source: 'startup', cwd: home }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(JSON.parse(r.stdout).hookSpecificOutput.additionalContext, new RegExp(`PUBLISHER=.*--home ${home} pointer publish`));
  assert.equal(log(home, sid).filter((e) => e.type === 'episode.opened').length, 1);
});

test("gemini: the archive keeps the user's prompt, not the hook context Gemini wraps around it", () => {
  const home = tmpDir();
  const sid = randomUUID();
  const prompt = '<hook_context>TASK_POINTER_V2\nSTATUS=CLEAN\n</hook_context>\n\nfirst prompt\nsecond line\n<hook_context>more</hook_context>';
  const r = run(home, { session_id: sid, hook_event_name: 'BeforeAgent', prompt, cwd: home }, ['gemini']);
  assert.equal(r.code, 0, r.stderr);
  const ev = log(home, sid);
  assert.equal(ev.find((e) => e.type === 'prompt.submitted').payload.text, 'first prompt\nsecond line');
  assert.equal(ev[0].payload.title, 'first prompt');
});

test('the pointer block (its DIRTY write cannot happen: the store is unusable) → block JSON, TASK_POINTER_V2:<CODE> on stderr, exit 2, for every provider', () => {
  const root = tmpDir();
  fs.writeFileSync(join(root, 'not-a-dir'), '');
  const home = join(root, 'not-a-dir', 'store');
  for (const [provider, event] of [
    ['claude', 'UserPromptSubmit'],
    ['codex', 'UserPromptSubmit'],
    ['gemini', 'BeforeAgent'],
  ]) {
    const r = run(home, { session_id: randomUUID(), hook_event_name: event, prompt: 'x', cwd: root }, [provider]);
    assert.equal(r.code, 2, `${provider}: ${r.stderr}`);
    const j = JSON.parse(r.stdout);
    assert.equal(j.decision, 'block');
    assert.ok(typeof j.reason === 'string' && j.reason.length > 0);
    assert.match(r.stderr, /^TASK_POINTER_V2:[A-Z_]+$/m);
  }
});

test('a PreCompact the pointer cannot accept (bad trigger) is an ordinary hook failure: exit 1, stderr, no stdout', () => {
  const home = tmpDir();
  const r = run(home, { session_id: randomUUID(), hook_event_name: 'PreCompact', trigger: 'sideways', cwd: home });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^baton: hook pointer: [A-Z_]+ /m);
});

test('the pointer stop (compact recovery failed) → continue:false with the reason, exit 0; the episode boundary is still recorded', () => {
  const home = tmpDir();
  const sid = randomUUID();
  run(home, { session_id: sid, hook_event_name: 'SessionStart', source: 'startup', cwd: home });
  fs.writeFileSync(join(home, 'sessions', sid, 'state.json'), 'garbage');
  const r = run(home, { session_id: sid, hook_event_name: 'SessionStart', source: 'compact', cwd: home });
  assert.equal(r.code, 0);
  const j = JSON.parse(r.stdout);
  assert.equal(j.continue, false);
  assert.match(j.stopReason, /TASK_POINTER_RECOVERY_REQUIRED/);
  assert.equal(log(home, sid).filter((e) => e.type === 'episode.opened').length, 1);
});
