// `baton pick` as a person uses it: the real binary in a real terminal (tmux, 80x24), driven
// by key presses (send-keys) and read off the screen (capture-pane). A small store made with
// the real CLI (session new, session append, pointer publish) plus transcript items captured
// from Claude Code's real transcript (test/fixtures/transcripts/claude/). Without a terminal
// the command refuses with a code and writes nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FsStore } from '../src/store/store.ts';
import { captureOnce } from '../src/transcripts/capture.ts';
import { findReader } from '../src/transcripts/index.ts';
import { BIN, ROOT, baton, tmpDir, treeHash } from './helpers.ts';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
const CLAUDE_FIXTURE = join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl');

interface Store {
  root: string;
  home: string;
  work: string;
  ids: { retry: string; cache: string; docs: string; elsewhere: string };
}

function makeStore(): Store {
  const root = tmpDir('baton-pick-');
  const home = join(root, 'store');
  const work = join(root, 'proj');
  const other = join(root, 'other');
  fs.mkdirSync(work);
  fs.mkdirSync(other);
  const b = (args: string[], cwd = work, input?: string): string => {
    const r = baton(args, { home, cwd, input });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim();
  };
  const retry = b(['session', 'new', 'fix upload retry budget']);
  b(['session', 'append', retry, '--text', 'the retry budget is 3 attempts']);
  const receipt = JSON.parse(
    b(
      ['pointer', 'publish'],
      work,
      JSON.stringify({ schema_version: 3, session_id: retry, expected_generation: 'ABSENT', expected_revision: 0, task_id: '3f1c9a52-8d3b-4e2a-9c1d-2b7e5f6a8c90', target_status: 'CLEAN', pointer_text: 'Goal: ship the retry budget\nNext: wire the backoff table' }),
    ),
  );
  assert.equal(receipt.ok, true);
  const docs = b(['session', 'new', 'docs: rewrite the README']);
  const cache = b(['session', 'new', 'cache warmup for the index']);
  const elsewhere = b(['session', 'new', 'elsewhere work'], other);
  // Claude Code's own transcript, captured into the cache session (what a Stop hook does).
  const agentHome = join(root, 'agent-home');
  const projects = join(agentHome, '.claude', 'projects', '-home-u-proj');
  fs.mkdirSync(projects, { recursive: true });
  const file = join(projects, 'c1.jsonl');
  fs.copyFileSync(CLAUDE_FIXTURE, file);
  const reader = findReader('claude');
  assert.ok(reader);
  const r = captureOnce({
    store: new FsStore(home),
    sessionId: cache,
    reader,
    path: file,
    agentSession: 'c1',
    writer: { surface: 'hook:claude', instanceId: 'hook:claude:c1', actor: 'agent' },
    now: new Date(),
    readerEnv: { home: agentHome, env: {} },
    workspace: work,
    budget: Number.POSITIVE_INFINITY,
  });
  assert.ok(r.appended > 5, JSON.stringify(r));
  return { root, home, work, ids: { retry, cache, docs, elsewhere } };
}

/** A terminal: one tmux server of its own (its own socket), a plain shell with the prompt `$ `. */
class Terminal {
  /** The server's socket, in the test's temp folder: removed with it. */
  readonly socket: string;
  constructor(cwd: string, env: Record<string, string>, size = { x: 80, y: 24 }) {
    this.socket = join(tmpDir('baton-pick-tmux-'), 'sock');
    const full: Record<string, string | undefined> = { ...process.env, ...env, PS1: '$ ', BATON_INSTANCE: undefined, BATON_SESSION: undefined, TMUX: undefined };
    for (const k of Object.keys(full)) if (full[k] === undefined) delete full[k];
    const r = spawnSync('tmux', ['-S', this.socket, '-f', '/dev/null', 'new-session', '-d', '-x', String(size.x), '-y', String(size.y), '-c', cwd, "env PS1='$ ' bash --norc --noprofile"], { env: full as NodeJS.ProcessEnv, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  }
  keys(...keys: string[]): void {
    for (const k of keys) this.tmux('send-keys', '-t', '0', k);
  }
  type(text: string): void {
    this.tmux('send-keys', '-t', '0', '-l', text);
  }
  screen(escapes = false): string {
    return this.tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-t', '0');
  }
  info(format: string): string {
    return this.tmux('display-message', '-p', '-t', '0', format).trim();
  }
  /** Polls the screen until `ok` holds (a deadline, not a timing assertion: a slow machine only waits longer). */
  async waitFor(ok: (screen: string) => boolean, what: string, ms = 20_000): Promise<string> {
    const end = Date.now() + ms;
    let s = this.screen();
    while (!ok(s)) {
      if (Date.now() > end) assert.fail(`the screen never showed ${what}:\n${s}`);
      await new Promise((r) => setTimeout(r, 50));
      s = this.screen();
    }
    return s;
  }
  close(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server']);
  }
}

const picker = (s: string): boolean => s.includes('Esc quit');
const lines = (s: string): string[] => s.split('\n').map((l) => l.trimEnd()).join('\n').replace(/\n+$/, '').split('\n');

let st: Store;
const terms: Terminal[] = [];
const terminal = (env: Record<string, string> = {}, size?: { x: number; y: number }): Terminal => {
  const t = new Terminal(st.work, { BATON_HOME: st.home, NO_COLOR: '1', ...env }, size);
  terms.push(t);
  return t;
};
const run = `node ${BIN}`;

before(() => {
  st = makeStore();
});
after(() => {
  for (const t of terms) t.close();
});

test('draws the sessions of this directory, newest first, with agent, project, activity, pointer, in 80x24', { skip: !HAS_TMUX && 'tmux is not installed' }, async () => {
  const t = terminal();
  await t.waitFor((s) => s.startsWith('$'), 'the shell prompt');
  t.type(`${run} pick --print`);
  t.keys('Enter');
  const s = await t.waitFor(picker, 'the picker');
  const rows = lines(s);
  assert.ok(rows.length <= 24 && rows.every((l) => l.length <= 80), s);
  assert.match(rows[0], /^filter> +3\/3$/);
  assert.match(rows[1], /TITLE +AGENT +PROJECT +ACTIVE +POINTER/);
  // Newest first: the cache session got the items last; the other directory's session is not listed.
  assert.match(rows[2], /^> cache warmup for the index +claude +proj +(now|\d+s ago) +- *$/);
  assert.match(rows[3], /^ {2}docs: rewrite the README +- +proj/);
  assert.match(rows[4], /^ {2}fix upload retry budget +- +proj +(now|\S+ ago) +CLEAN$/);
  assert.ok(!s.includes('elsewhere'), s);
  // The preview of the selected session: no pointer, its last turns from Claude Code's transcript.
  assert.ok(s.includes(`── ${st.ids.cache} ──`), s);
  assert.ok(s.includes('no pointer published'), s);
  assert.match(s, /you .*: Write hello into notes\.txt/);
  assert.match(s, /claude .*: Both files are written/);
  assert.match(rows[rows.length - 1], /Tab full-text search · Esc quit/);
  // Down twice: the retry session, its pointer in the preview.
  t.keys('Down', 'Down');
  const s2 = await t.waitFor((x) => x.includes('> fix upload retry budget'), 'the selection moved');
  assert.match(s2, /pointer CLEAN revision 1/);
  assert.match(s2, /Goal: ship the retry budget/);
  t.keys('Escape');
  await t.waitFor((x) => x.includes('$ ') && !picker(x), 'the shell again');
});

test('typing filters fuzzily over title, pointer text and first prompt', { skip: !HAS_TMUX && 'tmux is not installed' }, async () => {
  const t = terminal();
  await t.waitFor((s) => s.startsWith('$'), 'the shell prompt');
  t.type(`${run} pick`);
  t.keys('Enter');
  await t.waitFor(picker, 'the picker');
  t.type('rdme'); // r…d…m…e in "rewrite the README": the title, fuzzily
  let s = await t.waitFor((x) => x.startsWith('filter> rdme'), 'the typed filter');
  assert.match(lines(s)[0], /1\/3$/);
  assert.match(lines(s)[2], /^> docs: rewrite the README/);
  t.keys('C-u');
  t.type('backoff'); // only in the retry session's pointer text
  s = await t.waitFor((x) => x.startsWith('filter> backoff'), 'the second filter');
  assert.match(lines(s)[0], /1\/3$/);
  assert.match(lines(s)[2], /^> fix upload retry budget/);
  t.keys('BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace', 'BSpace');
  s = await t.waitFor((x) => /^filter> +3\/3/.test(x), 'the filter erased');
  t.type('zzqx');
  s = await t.waitFor((x) => x.startsWith('filter> zzqx'), 'a filter matching nothing');
  assert.match(s, /no session matches/);
  t.keys('Escape');
  await t.waitFor((x) => !picker(x), 'the shell again');
});

test('Tab switches to full-text search over the items; the preview shows the hit', { skip: !HAS_TMUX && 'tmux is not installed' }, async () => {
  const t = terminal();
  await t.waitFor((s) => s.startsWith('$'), 'the shell prompt');
  t.type(`${run} pick --print`);
  t.keys('Enter');
  await t.waitFor(picker, 'the picker');
  t.keys('Tab');
  await t.waitFor((x) => x.startsWith('search>') && x.includes('Tab filter by title'), 'the search mode');
  t.type('attempts');
  let s = await t.waitFor((x) => /^search> attempts +1 session/.test(x), 'the search answered');
  assert.match(lines(s)[2], /^> fix upload retry budget/); // the context entry's text
  assert.match(s, /match seq \d+ · .*\nthe retry budget is 3 attempts\n/);
  t.keys('C-u');
  t.type('notes.txt');
  s = await t.waitFor((x) => /^search> notes\.txt +1 session/.test(x), 'a search over the items');
  assert.match(lines(s)[2], /^> cache warmup for the index/);
  assert.match(s, /match claude · \w+ · seq \d+ · .*\n.*notes\.txt/);
  // Tab back: the same text filters the list again.
  t.keys('Tab');
  s = await t.waitFor((x) => x.startsWith('filter> notes.txt'), 'the filter mode');
  t.keys('Escape');
  await t.waitFor((x) => !picker(x), 'the shell again');
});

test('Enter with --print prints the chosen id and its continue command, and the terminal is as it was', { skip: !HAS_TMUX && 'tmux is not installed' }, async () => {
  const t = terminal();
  await t.waitFor((s) => s.startsWith('$'), 'the shell prompt');
  t.type('echo before-pick');
  t.keys('Enter');
  t.type(`${run} pick --print; echo "exit=$?"`);
  t.keys('Enter');
  await t.waitFor(picker, 'the picker');
  assert.equal(t.info('#{alternate_on}'), '1');
  t.type('retry');
  await t.waitFor((x) => /^filter> retry +1\/3/.test(x), 'the filter');
  t.keys('Enter');
  // The shell's next prompt, not just the echo: the shell prints the two separately.
  const s = await t.waitFor((x) => /^exit=\d+ *\n\$/m.test(x), 'the command to end and the prompt');
  const want = ['$ echo before-pick', 'before-pick', `$ ${run} pick --print; echo "exit=$?"`, st.ids.retry, `baton continue ${st.ids.retry}`, 'exit=0', '$'];
  assert.deepEqual(lines(s), want);
  assert.equal(t.info('#{alternate_on}'), '0');
  assert.equal(t.info('#{cursor_flag}'), '1');
  t.type('stty -a | grep -o -- "-\\?icanon" ');
  t.keys('Enter');
  const s2 = await t.waitFor((x) => /^-?icanon$/m.test(x), 'stty');
  assert.match(s2, /^icanon$/m); // canonical mode again: raw mode is off
});

test('--json prints the chosen session as one JSON document', { skip: !HAS_TMUX && 'tmux is not installed' }, async () => {
  const t = terminal();
  await t.waitFor((s) => s.startsWith('$'), 'the shell prompt');
  t.type(`${run} pick --json > /dev/null; echo "exit=$?"`);
  t.keys('Enter');
  // stdout is a file: not a terminal, refused.
  let s = await t.waitFor((x) => /^exit=\d+$/m.test(x), 'the refusal');
  assert.match(s, /baton: USAGE pick needs a terminal; use baton session list\nexit=2/);
  t.keys('C-l');
  t.type(`${run} pick --json; echo "exit=$?"`);
  t.keys('Enter');
  await t.waitFor(picker, 'the picker');
  t.keys('Enter');
  s = await t.waitFor((x) => /^exit=\d+$/m.test(x), 'the command to end');
  const doc = JSON.parse(lines(s)[1]);
  assert.deepEqual(doc, { ok: true, session: st.ids.cache, command: `baton continue ${st.ids.cache}` });
});

test('Esc and Ctrl-C leave the terminal exactly as it was: the shell prompt, no leftover', { skip: !HAS_TMUX && 'tmux is not installed' }, async () => {
  for (const key of ['Escape', 'C-c']) {
    const t = terminal();
    await t.waitFor((s) => s.startsWith('$'), 'the shell prompt');
    t.type('echo before-pick');
    t.keys('Enter');
    // The next prompt first: typed ahead of it, the line is echoed before the prompt and again after it.
    await t.waitFor((x) => /^before-pick\n\$/m.test(x), 'the prompt after the echo');
    t.type(`${run} pick; echo "exit=$?"`);
    t.keys('Enter');
    await t.waitFor(picker, 'the picker');
    t.type('cache');
    await t.waitFor((x) => x.startsWith('filter> cache'), 'the filter');
    t.keys(key);
    const s = await t.waitFor((x) => /^exit=\d+ *\n\$/m.test(x), `the command to end and the prompt on ${key}`);
    assert.deepEqual(lines(s), ['$ echo before-pick', 'before-pick', `$ ${run} pick; echo "exit=$?"`, 'exit=130', '$'], key);
    assert.equal(t.info('#{alternate_on}'), '0');
    assert.equal(t.info('#{cursor_flag}'), '1');
  }
});

test('resizes: the frame follows the window, bigger and smaller', { skip: !HAS_TMUX && 'tmux is not installed' }, async () => {
  const t = terminal();
  await t.waitFor((s) => s.startsWith('$'), 'the shell prompt');
  t.type(`${run} pick`);
  t.keys('Enter');
  await t.waitFor(picker, 'the picker');
  t.tmux('resize-window', '-t', '0', '-x', '120', '-y', '36');
  let s = await t.waitFor((x) => lines(x).length === 35 && /^filter> {100,}3\/3$/.test(lines(x)[0]), 'the frame at 120x36');
  assert.ok(lines(s).every((l) => l.length <= 120));
  assert.match(lines(s)[34], /Esc quit/);
  t.tmux('resize-window', '-t', '0', '-x', '60', '-y', '16');
  s = await t.waitFor((x) => lines(x).length === 15 && /^filter> +3\/3$/.test(lines(x)[0]) && lines(x)[0].length === 60, 'the frame at 60x16');
  assert.ok(lines(s).every((l) => l.length <= 60), s);
  assert.match(s, /> cache warmup/);
  t.keys('Escape');
  await t.waitFor((x) => !picker(x), 'the shell again');
});

test('colours follow NO_COLOR', { skip: !HAS_TMUX && 'tmux is not installed' }, async () => {
  const sgrColour = /\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38;5;\d+)(?:;[0-9;]*)?m/;
  for (const noColor of [true, false]) {
    const t = terminal(noColor ? {} : { NO_COLOR: '' });
    await t.waitFor((s) => s.startsWith('$'), 'the shell prompt');
    t.type(`${run} pick`);
    t.keys('Enter');
    await t.waitFor(picker, 'the picker');
    const s = t.screen(true);
    assert.equal(sgrColour.test(s), !noColor, s);
    assert.match(s, /\x1b\[(?:[0-9;]*;)?7m(?:\x1b\[[0-9;]*m)*> cache warmup/, 'the selection is shown in inverse either way');
    t.keys('Escape');
    await t.waitFor((x) => !picker(x), 'the shell again');
  }
});

test('without a terminal: exit 2 with USAGE naming session list, nothing on stdout, nothing written', () => {
  const fresh = join(tmpDir('baton-pick-none-'), 'store');
  for (const home of [st.home, fresh]) {
    const beforeHash = fs.existsSync(home) ? treeHash(home) : null;
    for (const args of [['pick'], ['pick', '--all', '--print'], ['--home', home, 'pick']]) {
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: st.work, env: { ...process.env, BATON_HOME: home, NO_COLOR: '1' }, encoding: 'utf8', input: '' });
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, 'baton: USAGE pick needs a terminal; use baton session list\n');
    }
    assert.equal(fs.existsSync(home) ? treeHash(home) : null, beforeHash);
  }
});

test('a bad flag is a usage error before anything is read', () => {
  const r = spawnSync(process.execPath, [BIN, 'pick', '--bogus'], { cwd: st.work, env: { ...process.env, BATON_HOME: st.home }, encoding: 'utf8', input: '' });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'baton: USAGE unknown option "--bogus"\n');
  const help = spawnSync(process.execPath, [BIN, 'pick', '--help'], { encoding: 'utf8', input: '' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: baton pick \[--all\] \[--print\] \[--json\]/);
});
