// Clean refusals at the edge (issue 11, "Availability and clean refusals"): provider names
// that live on the object prototype, unbounded stdin and files, numbers, durations and ids
// out of range, an empty append. Every refusal is a code, exit 2 (exit 0 for the hook, which
// never breaks the agent), and leaves the store byte-identical.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { agentWorld, baton, tmpDir, treeHash } from './helpers.ts';

const ME = { BATON_INSTANCE: 'tester' };
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];

/** A store with one session `s1` (lease held by ME) and one `src` to capture from; removed after the test. */
function world(t: TestContext): { home: string; cwd: string } {
  const home = tmpDir();
  const cwd = tmpDir('baton-ws-');
  t.after(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(cwd, { recursive: true, force: true });
  });
  for (const id of ['s1', 'src']) {
    const r = baton(['session', 'new', `Session ${id}`, '--id', id, '--cwd', cwd], { home, env: ME });
    assert.equal(r.code, 0, r.stderr);
  }
  assert.equal(baton(['session', 'append', 's1', '--text', 'first entry'], { home, env: ME }).code, 0);
  return { home, cwd };
}

test('a provider named like an Object.prototype member is an unknown provider: one stderr line, exit 0, nothing written', (t) => {
  const home = join(tmpDir(), 'store');
  t.after(() => fs.rmSync(join(home, '..'), { recursive: true, force: true }));
  const payload = JSON.stringify({ session_id: 'abc-1', hook_event_name: 'UserPromptSubmit', prompt: 'hello', cwd: '/tmp' });
  for (const name of PROTOTYPE_NAMES) {
    const r = baton(['hook', name], { home, input: payload });
    assert.equal(r.code, 0, `hook ${name}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `baton: hook: USAGE unknown provider ${JSON.stringify(name)} (known: claude, codex, gemini, qwen, copilot, droid, opencode, kilo, pi)\n`, `hook ${name}`);
    assert.equal(fs.existsSync(home), false, `hook ${name} created the store`);
  }
});

test('install / uninstall / verify of a prototype-member provider is USAGE, exit 2, no settings file touched', (t) => {
  const w = agentWorld();
  t.after(() => fs.rmSync(w.root, { recursive: true, force: true }));
  const before = treeHash(w.root);
  for (const name of PROTOTYPE_NAMES) {
    for (const cmd of [['install', name], ['uninstall', name], ['verify', name]]) {
      const r = baton([...cmd, '--json'], { env: w.env, cwd: w.project });
      assert.equal(r.code, 2, `${cmd.join(' ')}: ${r.stderr}`);
      assert.equal(r.json?.error?.code, 'USAGE', `${cmd.join(' ')}: ${r.stdout}`);
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${cmd.join(' ')}: one line, no stack: ${r.stderr}`);
    }
  }
  assert.equal(treeHash(w.root), before);
});

test('a hook payload over 8 MiB is refused after reading 8 MiB + 1: one line, exit 0, the store unchanged', (t) => {
  const { home } = world(t);
  const before = treeHash(home);
  const prompt = 'x'.repeat(9 * 1024 * 1024);
  const r = baton(['hook', 'claude'], { home, input: JSON.stringify({ session_id: 's1', hook_event_name: 'UserPromptSubmit', prompt }) });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'baton: hook: INPUT_TOO_LARGE the payload on stdin is over the 8388608-byte limit; nothing done\n');
  assert.equal(treeHash(home), before);
});

test('pointer migrate of /dev/zero stops at 64 KiB + 1 with INPUT_TOO_LARGE, exit 2, nothing written', (t) => {
  const { home } = world(t);
  const before = treeHash(home);
  for (const apply of [[], ['--apply']]) {
    const r = baton(['pointer', 'migrate', '/dev/zero', ...apply, '--json'], { home });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.json.error.code, 'INPUT_TOO_LARGE');
    assert.equal(r.json.error.limit_bytes, 65536);
  }
  assert.equal(treeHash(home), before);
});

test('append --stdin over 1 MiB is WS205 and an empty append (0 bytes on stdin, or --text "") is USAGE; the log unchanged', (t) => {
  const { home } = world(t);
  const before = treeHash(home);
  const big = baton(['session', 'append', 's1', '--stdin', '--json'], { home, env: ME, input: Buffer.alloc(1024 * 1024 + 10, 0x61) });
  assert.equal(big.code, 2, big.stderr);
  assert.equal(big.json.error.code, 'WS205');
  for (const args of [['--stdin'], ['--text', '']]) {
    const r = baton(['session', 'append', 's1', ...args, '--json'], { home, env: ME, input: '' });
    assert.equal(r.code, 2, `${args}: ${r.stdout}`);
    assert.equal(r.json.error.code, 'USAGE');
    assert.match(r.stderr, /^baton: USAGE the text is empty/);
  }
  assert.equal(treeHash(home), before);
});

test('ref capture --body-file and artifact add past their limits (a sparse file, /dev/zero) are refused, nothing written', (t) => {
  const { home, cwd } = world(t);
  const sparse = join(cwd, 'huge.bin');
  fs.writeFileSync(sparse, '');
  fs.truncateSync(sparse, 65 * 1024 * 1024); // 65 MiB of holes: no disk used
  const before = treeHash(home);
  const cases: [string[], number][] = [
    [['ref', 'capture', '--from', 'src', '--into', 's1', '--body-file', sparse], 8 * 1024 * 1024],
    [['ref', 'capture', '--from', 'src', '--into', 's1', '--body-file', '/dev/zero'], 8 * 1024 * 1024],
    [['session', 'artifact', 'add', 's1', sparse], 64 * 1024 * 1024],
    [['session', 'artifact', 'add', 's1', '/dev/zero', '--as', 'zero'], 64 * 1024 * 1024],
  ];
  for (const [args, limit] of cases) {
    const r = baton([...args, '--json'], { home, env: ME });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.json.error.code, 'INPUT_TOO_LARGE', args.join(' '));
    assert.equal(r.json.error.limit_bytes, limit);
  }
  assert.equal(treeHash(home), before);
});

test('numbers, durations and ids out of range are refused with a code, exit 2, before any file is touched', (t) => {
  const { home, cwd } = world(t);
  const cases: [string[], string][] = [
    [['session', 'new', 'T', '--cwd', cwd, '--lease', '999999999999d'], 'USAGE'],
    [['session', 'new', 'T', '--cwd', cwd, '--lease', '0s'], 'USAGE'],
    [['session', 'new', 'T', '--cwd', cwd, '--lease', '99999999999999999999ms'], 'USAGE'],
    [['session', 'new', 'T', '--cwd', cwd, '--parent', '../x'], 'WS003'],
    [['session', 'new', 'T', '--cwd', cwd, '--parent', ''], 'WS003'],
    [['session', 'new', 'T', '--cwd', cwd, '--id', '../x'], 'WS003'],
    [['session', 'new', 'T', '--cwd', cwd, '--allow', ','], 'USAGE'],
    [['session', 'list', '--all', '--limit', '99999999999999999999'], 'USAGE'],
    [['session', 'list', '--all', '--limit', '0'], 'USAGE'],
    [['session', 'list', '--all', '--limit', '1e3'], 'USAGE'],
    [['search', 'entry', '--all', '--limit', '99999999999999999999'], 'USAGE'],
    [['search', 'entry', '--all', '--limit', '-1'], 'USAGE'],
    [['session', 'resume', 's1', '--lease', '999999999999d'], 'USAGE'],
    [['session', 'renew', 's1', '--lease', '10y'], 'USAGE'],
    [['session', 'renew', 's1', '--lease', '0m'], 'USAGE'],
    [['session', 'log', 's1', '--tail', '99999999999999999999'], 'USAGE'],
    [['session', 'log', 's1', '--tail', '-1'], 'USAGE'],
    [['session', 'log', 's1', '--tail', '1e2'], 'USAGE'],
    [['session', 'log', 's1', '--since', '0x10'], 'USAGE'],
    [['session', 'log', 's1', '--since', '1.5'], 'USAGE'],
    [['session', 'prune', '--older-than', '999999999999d'], 'USAGE'],
    [['session', 'prune', '--older-than', '-1d'], 'USAGE'],
    [['pointer', 'report', 's1', '--recall', '99999999999999999999'], 'USAGE'],
    [['pointer', 'report', 's1', '--recall', '-3'], 'USAGE'],
    [['ref', 'capture', '--from', 'src', '--into', 's1', '--ttl', '999999999999d'], 'USAGE'],
    [['ref', 'capture', '--from', 'src', '--into', 's1', '--ttl', '0s'], 'REF_EXPIRY'],
    [['ref', 'capture', '--from', 'src', '--into', 's1', '--max-bytes', '99999999999999999999'], 'REF_INVALID_BOUND'],
    [['ref', 'capture', '--from', 'src', '--into', 's1', '--max-lines', '1e3'], 'REF_INVALID_BOUND'],
    [['session', 'append', 's1', '--text', 'x', '--tag', ''], 'USAGE'],
    [['session', 'show', '../s1'], 'WS003'],
  ];
  const before = treeHash(home);
  for (const [args, code] of cases) {
    const r = baton([...args, '--json'], { home, env: ME, cwd });
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code} ${r.stderr}`);
    assert.equal(r.json?.error?.code, code, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${args.join(' ')}: one stderr line: ${r.stderr}`);
    assert.equal(treeHash(home), before, `${args.join(' ')} changed the store`);
  }
});
