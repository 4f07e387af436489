// The lean `session list` entry (dist/list.cjs, src/cli/list-entry.ts): bin/baton.cjs
// routes `session list` to it; it must print exactly what the full command line prints
// (BATON_LIST_LEAN=0 forces the full path), and hand anything it does not parse to it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { append, makeSession } from './index-helpers.ts';

const FULL = { BATON_LIST_LEAN: '0' };
const ROOT = resolve(import.meta.dirname, '..');

function store(): { home: string; ws: string; ids: string[] } {
  const home = tmpDir();
  const ws = fs.realpathSync(tmpDir('baton-ws-'));
  const other = fs.realpathSync(tmpDir('baton-ws-'));
  const a = makeSession(home, 'first', ws, { texts: ['alpha words'] });
  const b = makeSession(home, 'second', other);
  const c = makeSession(home, 'third', ws);
  append(home, c, 'episode.opened', { episode: 'ep-1', provider: 'claude', provider_session_id: 'p', source: 'startup', context_file: 'c.md' }, 'hook:claude');
  return { home, ws, ids: [a, b, c] };
}

/** Relative times ("3s ago") may tick between two runs: compare the rest of a table. */
const untimed = (s: string): string => s.replace(/\S+ ago */g, 'AGO ').replace(/ +\n/g, '\n');

test('the lean path and the full command line print the same JSON, table and exit code', () => {
  const { home, ws } = store();
  const cases: string[][] = [
    ['session', 'list', '--all', '--json'],
    ['--json', 'session', 'list', '--all', '--limit', '2'],
    ['--home', home, 'session', 'list', '--cwd', ws, '--json'],
    ['session', 'list', `--cwd=${ws}`, '--state', 'active', '--json'],
    ['session', 'list', '--all'],
    ['session', 'list', '--all', '--quiet'],
    ['session', 'list', '--cwd', ws],
  ];
  for (const args of cases) {
    const lean = baton(args, { home, cwd: ws });
    const full = baton(args, { home, cwd: ws, env: FULL });
    assert.equal(lean.code, 0, `${args.join(' ')}: ${lean.stderr}`);
    assert.equal(lean.code, full.code, args.join(' '));
    if (args.includes('--json')) assert.deepEqual(lean.json, full.json, args.join(' '));
    assert.equal(untimed(lean.stdout), untimed(full.stdout), args.join(' '));
    assert.equal(lean.stderr, full.stderr, args.join(' '));
  }
});

test('refusals of the lean path are those of the full command line, and change nothing', () => {
  const { home, ws } = store();
  const cases: string[][] = [
    ['session', 'list', '--limit', '0', '--json'],
    ['session', 'list', '--state', 'sleeping'],
    ['session', 'list', '--all', '--cwd', ws, '--json'],
    ['session', 'list', '--bogus'],
    ['session', 'list', '--limit'],
    ['session', 'list', 'extra'],
  ];
  for (const args of cases) {
    const before = treeHash(home);
    const lean = baton(args, { home, cwd: ws });
    const full = baton(args, { home, cwd: ws, env: FULL });
    assert.equal(lean.code, 2, `${args.join(' ')}: ${lean.stderr}`);
    assert.equal(lean.code, full.code, args.join(' '));
    assert.equal(lean.stdout, full.stdout, args.join(' '));
    assert.equal(lean.stderr, full.stderr, args.join(' '));
    assert.equal(treeHash(home), before, args.join(' '));
  }
});

test('what the lean entry does not parse (help) goes to the full command line', () => {
  const lean = baton(['session', 'list', '--help']);
  assert.equal(lean.code, 0);
  assert.match(lean.stdout, /--state <state>/);
});

test('the lean bundle lists without the full command line next to it', () => {
  const { home } = store();
  const dir = tmpDir('baton-lean-');
  fs.copyFileSync(join(ROOT, 'dist', 'list.cjs'), join(dir, 'list.cjs'));
  const env = { ...process.env, BATON_HOME: home, NO_COLOR: '1', NODE_PATH: join(ROOT, 'node_modules') };
  const r = spawnSync(process.execPath, [join(dir, 'list.cjs'), 'session', 'list', '--all', '--json'], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const full = baton(['session', 'list', '--all', '--json'], { home, env: FULL });
  assert.deepEqual(JSON.parse(r.stdout), full.json);
  // Anything else needs the full command line: without it, the fallback fails loudly.
  const help = spawnSync(process.execPath, [join(dir, 'list.cjs'), 'session', 'list', '--help'], { env, encoding: 'utf8' });
  assert.notEqual(help.status, 0);
  assert.match(help.stderr, /cli\.cjs/);
});

test('session list --json builds no stdio stream: net, tty and stream are never loaded (a picker runs it on every open)', () => {
  const { home, ws } = store();
  const root = tmpDir();
  const list = join(root, 'modules.txt');
  const preload = join(root, 'list-modules.cjs');
  // At exit, the built-in modules this process loaded.
  fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
  const r = baton(['session', 'list', '--all', '--json'], { home, cwd: ws, env: { NODE_OPTIONS: `--require ${preload}` } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.sessions.length, 3);
  const loaded = fs.readFileSync(list, 'utf8').split('\n');
  assert.ok(loaded.includes('NativeModule fs'), 'the list is the real one');
  for (const m of ['net', 'tty', 'stream']) assert.ok(!loaded.includes(`NativeModule ${m}`), m);
});

test('a baton linked into a bin folder lists from the index: better-sqlite3 (bundled) finds its addon from the package, not from the link', () => {
  const { home } = store();
  const bin = tmpDir('baton-bin-');
  fs.symlinkSync(join(ROOT, 'bin', 'baton.cjs'), join(bin, 'baton'));
  const elsewhere = tmpDir('baton-cwd-');
  const env: NodeJS.ProcessEnv = { ...process.env, BATON_HOME: home, NO_COLOR: '1' };
  delete env.NODE_PATH;
  for (const args of [['session', 'list', '--all', '--json'], ['--home', home, 'index', 'rebuild', '--json']]) {
    const r = spawnSync(process.execPath, [join(bin, 'baton'), ...args], { env, cwd: elsewhere, encoding: 'utf8' });
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  const r = spawnSync(process.execPath, [join(bin, 'baton'), 'session', 'list', '--all', '--json'], { env, cwd: elsewhere, encoding: 'utf8' });
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.source, 'index');
  assert.equal(doc.sessions.length, 3);
});
