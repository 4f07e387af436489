// `baton continue` black-box: the real bin/baton.cjs in a temp home, a session made through the
// real hook (`baton hook claude` SessionStart + Stop over a copy of Claude Code's real
// transcript), stand-in agent programs on PATH. --print / --json (the command, env, cwd, block;
// nothing written), the run (lease taken as the target's surface and released, the block at the
// first start only, frozen, the agent's exit code), and every refusal with the disk unchanged.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl');
const SID = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';
const BIN_JS = join(import.meta.dirname, '..', 'bin', 'baton.cjs');

interface World {
  root: string;
  home: string;
  project: string;
  store: string;
  bin: string;
  env: Record<string, string>;
}

function world(): World {
  const root = tmpDir('baton-continue-');
  const w = { root, home: join(root, 'home'), project: join(root, 'proj'), store: join(root, 'store'), bin: join(root, 'bin') } as World;
  for (const d of [w.home, w.project, w.bin]) fs.mkdirSync(d, { recursive: true });
  w.env = { HOME: w.home, BATON_HOME: w.store, PATH: `${w.bin}:/usr/bin:/bin` };
  return w;
}

/** A session made through the real hook: Claude Code's start, then its turn end capturing the copied transcript. */
function claudeSession(w: World): void {
  const dir = join(w.home, '.claude', 'projects', w.project.replace(/[^A-Za-z0-9]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${SID}.jsonl`);
  fs.copyFileSync(FIXTURE, transcript);
  for (const ev of [
    { hook_event_name: 'SessionStart', source: 'startup' },
    { hook_event_name: 'Stop', stop_hook_active: false },
  ]) {
    const r = baton(['hook', 'claude'], { env: w.env, cwd: w.project, input: JSON.stringify({ session_id: SID, cwd: w.project, transcript_path: transcript, ...ev }) });
    assert.equal(r.code, 0, r.stderr);
  }
  assert.ok(fs.existsSync(join(w.store, 'sessions', SID, 'transcripts', 'recent.json')), 'the hook captured the transcript');
}

/** A stand-in agent program: records its arguments and two SessionStart hooks' outputs, exits with `code`. */
function fakeAgent(w: World, name: string, provider: string, code: number): string {
  const out = join(w.root, `${name}.out`);
  const payload = (ps: string) => JSON.stringify({ session_id: ps, hook_event_name: 'SessionStart', source: 'startup', cwd: '.' }).replace(/'/g, '');
  const script = [
    '#!/bin/sh',
    `OUT='${out}'`,
    'printf "%s\\n" "$PWD" "$@" > "$OUT.args"',
    'env | grep ^BATON_ | sort > "$OUT.env"',
    `echo '${payload(`${name}-run-1`)}' | '${process.execPath}' '${BIN_JS}' hook ${provider} > "$OUT.start1"`,
    `echo '${payload(`${name}-run-1`)}' | '${process.execPath}' '${BIN_JS}' hook ${provider} > "$OUT.start2"`,
    'cat "$BATON_HOME/sessions/$BATON_SESSION/lock.json" > "$OUT.lock" 2>/dev/null',
    `exit ${code}`,
    '',
  ].join('\n');
  fs.writeFileSync(join(w.bin, name), script, { mode: 0o755 });
  return out;
}

const contextOf = (stdout: string): string => JSON.parse(stdout).hookSpecificOutput.additionalContext;

describe('baton continue', () => {
  let w: World;
  before(() => {
    w = world();
    claudeSession(w);
    fakeAgent(w, 'gemini', 'gemini', 0);
    fakeAgent(w, 'claude', 'claude', 0);
  });

  test('--print --in gemini: the exact command line and the handoff block; nothing written', () => {
    const before = treeHash(w.root);
    const r = baton(['continue', SID.slice(0, 8), '--in', 'gemini', '--print', '--', '-p', "it's your turn"], { env: w.env, cwd: w.root });
    assert.equal(r.code, 0, r.stderr);
    const [command, blank, ...block] = r.stdout.trimEnd().split('\n');
    assert.match(command, new RegExp(`^cd ${w.project} && BATON_HOME=${w.store} BATON_SESSION=${SID} BATON_INSTANCE=hook:gemini:continue@\\S+ BATON_HANDOFF=id=[0-9a-f]{16},from=claude,to=gemini,budget=4096,episode=claude-\\S+ gemini -p 'it'\\\\''s your turn'$`));
    assert.equal(blank, '');
    assert.equal(block[0], 'HANDOFF_BEGIN');
    assert.equal(block.at(-1), 'HANDOFF_END');
    assert.ok(block.includes('FROM_AGENT=claude'));
    // The earlier conclusion, cited by its seq in the log.
    const line = block.find((l) => l.includes('Both files are written'));
    assert.ok(line, r.stdout);
    const seq = Number(/seq=(\d+)/.exec(line)![1]);
    const ev = fs
      .readFileSync(join(w.store, 'sessions', SID, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.seq === seq);
    assert.equal(ev.type, 'transcript.item');
    assert.equal(ev.payload.role, 'assistant');
    assert.match(ev.payload.text, /Both files are written/);
    assert.ok(block.some((l) => /^ITEMS_OMITTED=\d+$/.test(l)));
    assert.equal(treeHash(w.root), before, 'print writes nothing');
  });

  test('--print --json: one document; without --in the last agent through its own resume, no block', () => {
    const before = treeHash(w.root);
    const a = baton(['--json', 'continue', SID, '--in', 'gemini', '--budget', '600', '--print'], { env: w.env });
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.json.ok, true);
    assert.equal(a.json.mode, 'start');
    assert.equal(a.json.cwd, w.project);
    assert.equal(a.json.env.BATON_SESSION, SID);
    assert.ok(Buffer.byteLength(a.json.block) <= 600);
    assert.equal(typeof a.json.command, 'string');
    const b = baton(['--json', 'continue', SID, '--print', '--', '-p', 'go on'], { env: w.env });
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.json.agent, 'claude');
    assert.equal(b.json.mode, 'resume');
    assert.deepEqual(b.json.argv, ['--resume', SID, '-p', 'go on']);
    assert.equal(b.json.block, null);
    assert.equal(b.json.env.BATON_HANDOFF, undefined);
    assert.equal(treeHash(w.root), before);
  });

  test('a run: lease as hook:gemini while it runs, the block at its first start only (frozen), its exit code, lease released', () => {
    const w2 = world();
    claudeSession(w2);
    const out = fakeAgent(w2, 'gemini', 'gemini', 7);
    const r = baton(['continue', SID, '--in', 'gemini', '--', '-p', 'hello'], { env: w2.env, cwd: w2.root });
    assert.equal(r.code, 7, r.stderr);
    assert.deepEqual(fs.readFileSync(`${out}.args`, 'utf8').split('\n').slice(0, 3), [w2.project, '-p', 'hello']);
    const env = fs.readFileSync(`${out}.env`, 'utf8');
    assert.match(env, new RegExp(`^BATON_SESSION=${SID}$`, 'm'));
    assert.match(env, /^BATON_INSTANCE=hook:gemini:continue@/m);
    const lock = JSON.parse(fs.readFileSync(`${out}.lock`, 'utf8'));
    assert.equal(lock.holder.surface, 'hook:gemini');
    const first = contextOf(fs.readFileSync(`${out}.start1`, 'utf8'));
    assert.match(first, /^TASK_POINTER_V2/);
    assert.ok(first.indexOf('HANDOFF_BEGIN') > first.indexOf('PUBLISHER='), 'after the pointer block');
    assert.match(first, /CONCLUSION seq=\d+ .*Both files are written/);
    const second = contextOf(fs.readFileSync(`${out}.start2`, 'utf8'));
    assert.doesNotMatch(second, /HANDOFF_BEGIN/);
    const sdir = join(w2.store, 'sessions', SID);
    assert.equal(fs.existsSync(join(sdir, 'lock.json')), false, 'released');
    const frozen = fs.readdirSync(join(sdir, 'contexts')).filter((n) => n.includes('--gemini-'));
    assert.equal(frozen.length, 1);
    const text = fs.readFileSync(join(sdir, 'contexts', frozen[0]), 'utf8');
    assert.ok(text.includes('HANDOFF_BEGIN') && text.includes('HANDOFF_END'));
    const types = fs
      .readFileSync(join(sdir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.type.startsWith('lock.'))
      .map((e) => `${e.type} ${e.surface}`);
    assert.deepEqual(types, ['lock.acquired hook:gemini', 'lock.released hook:gemini']);
  });

  test('a lease held elsewhere: WS101 naming the holder, for a print and a run; the disk unchanged', () => {
    const w3 = world();
    claudeSession(w3);
    const out = fakeAgent(w3, 'gemini', 'gemini', 0);
    const held = baton(['session', 'resume', SID], { env: { ...w3.env, BATON_INSTANCE: 'cli@alice@laptop' } });
    assert.equal(held.code, 0, held.stderr);
    const before = treeHash(w3.root);
    for (const args of [['--print'], []]) {
      const r = baton(['continue', SID, '--in', 'gemini', ...args], { env: w3.env });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /^baton: WS101 session \S+ is leased by cli@alice@laptop/);
      assert.equal(treeHash(w3.root), before, 'nothing changed');
    }
    assert.equal(fs.existsSync(`${out}.args`), false, 'the agent never started');
    // Expired: WS102 naming continue's --steal; --steal takes it.
    const lockPath = join(w3.store, 'sessions', SID, 'lock.json');
    const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
    lock.lease.lease_until = '2000-01-01T00:00:00.000Z';
    fs.writeFileSync(lockPath, JSON.stringify(lock));
    const expired = treeHash(w3.root);
    const r = baton(['--json', 'continue', SID, '--in', 'gemini', '--print'], { env: w3.env });
    assert.equal(r.code, 2);
    assert.equal(r.json.error.code, 'WS102');
    assert.equal(r.json.error.command, `baton continue ${SID} --in gemini --steal`);
    assert.equal(treeHash(w3.root), expired);
    const s = baton(['continue', SID, '--in', 'gemini', '--steal'], { env: w3.env });
    assert.equal(s.code, 0, s.stderr);
    assert.ok(fs.existsSync(`${out}.args`));
  });

  test('team mode: a shared session another machine owns is WS105 naming the owner; nothing changed', () => {
    const w4 = world();
    claudeSession(w4);
    fs.writeFileSync(join(w4.store, 'team.json'), '{}');
    fs.writeFileSync(join(w4.store, 'sessions', SID, 'team.json'), JSON.stringify({ machine: 'here', owner: 'desk', epoch: 3, since: '2026-12-01T00:00:00.000Z' }));
    fakeAgent(w4, 'gemini', 'gemini', 0);
    const before = treeHash(w4.root);
    const r = baton(['--json', 'continue', SID, '--in', 'gemini', '--print'], { env: w4.env });
    assert.equal(r.code, 2);
    assert.equal(r.json.error.code, 'WS105');
    assert.equal(r.json.error.owner, 'desk');
    assert.equal(treeHash(w4.root), before);
  });

  test('bad input: an unknown agent, an agent not installed, a workspace gone, a bad budget or stray argument — a code, nothing changed', () => {
    const w5 = world();
    claudeSession(w5);
    fakeAgent(w5, 'gemini', 'gemini', 0);
    const cases: { args: string[]; code: string; message: RegExp }[] = [
      { args: ['--in', 'vim'], code: 'USAGE', message: /unknown agent "vim": baton continues in claude, codex, gemini, qwen, copilot, droid, opencode, kilo, pi/ },
      { args: ['--in', 'codex'], code: 'CN001', message: /Codex CLI \(codex\) is not on PATH: install it with npm install -g @openai\/codex/ },
      { args: ['--in', 'gemini', '--budget', '100'], code: 'USAGE', message: /--budget must be/ },
      { args: ['--in', 'gemini', 'stray'], code: 'USAGE', message: /after --/ },
      { args: ['--in', 'gemini', '--workspace', join(w5.root, 'nope')], code: 'USAGE', message: /--workspace/ },
    ];
    const before = treeHash(w5.root);
    for (const c of cases) {
      for (const print of [['--print'], []]) {
        const r = baton(['--json', 'continue', SID, ...c.args, ...print], { env: w5.env });
        assert.equal(r.code, 2, `${c.args.join(' ')}: ${r.stdout}${r.stderr}`);
        assert.equal(r.json.error.code, c.code, r.stdout);
        assert.match(r.json.error.message, c.message);
        assert.equal(treeHash(w5.root), before, c.args.join(' '));
      }
    }
    // The workspace removed: CN002 names --workspace; --workspace elsewhere goes on.
    fs.rmSync(w5.project, { recursive: true });
    const gone = treeHash(w5.root);
    for (const print of [['--print'], []]) {
      const r = baton(['continue', SID, '--in', 'gemini', ...print], { env: w5.env });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /^baton: CN002 the workspace of session \S+, \S+, no longer exists: continue elsewhere with --workspace DIR/);
      assert.equal(treeHash(w5.root), gone);
    }
    const other = join(w5.root, 'other');
    fs.mkdirSync(other);
    const ok = baton(['--json', 'continue', SID, '--in', 'gemini', '--print', '--workspace', other], { env: w5.env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.json.cwd, other);
  });

  test('a session with no items: the block says so; without --in there is nothing to resume (CN003)', () => {
    const w6 = world();
    fakeAgent(w6, 'gemini', 'gemini', 0);
    const made = baton(['--json', 'session', 'new', 'fresh', '--id', 'fresh-1'], { env: w6.env, cwd: w6.project });
    assert.equal(made.code, 0, made.stderr);
    assert.equal(baton(['session', 'release', 'fresh-1'], { env: w6.env }).code, 0);
    const before = treeHash(w6.root);
    const r = baton(['--json', 'continue', 'fresh-1', '--in', 'gemini', '--print'], { env: w6.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.json.block, /^ITEMS=0$/m);
    assert.match(r.json.block, /^NOTE=no transcript items are recorded/m);
    assert.match(r.json.block, /^FROM_AGENT=none$/m);
    const n = baton(['--json', 'continue', 'fresh-1', '--print'], { env: w6.env });
    assert.equal(n.code, 2);
    assert.equal(n.json.error.code, 'CN003');
    assert.equal(treeHash(w6.root), before);
  });
});
