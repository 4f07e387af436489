// The lean `search` entry (dist/search.cjs, src/cli/search-entry.ts, search-args.ts): bin/baton.cjs routes
// `search` to it; it must print exactly what the full command line prints
// (BATON_SEARCH_LEAN=0 forces the full path), and hand anything it does not parse to it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { parseSearchArgv } from '../src/cli/search-args.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { append, makeSession } from './index-helpers.ts';

const FULL = { BATON_SEARCH_LEAN: '0' };
const ROOT = resolve(import.meta.dirname, '..');

function store(): { home: string; ws: string; ids: string[] } {
  const home = tmpDir();
  const ws = fs.realpathSync(tmpDir('baton-ws-'));
  const other = fs.realpathSync(tmpDir('baton-ws-'));
  const a = makeSession(home, 'first retry', ws, { texts: ['alpha retries the backoff', 'beta words'] });
  const b = makeSession(home, 'second', other, { texts: ['alpha elsewhere'] });
  append(home, b, 'prompt.submitted', { episode: null, text: 'retry alpha now', digest: 'abcdef0123456789' });
  return { home, ws, ids: [a, b] };
}

test('the lean argv parser takes what search knows and leaves the rest to the full command line', () => {
  assert.deepEqual(parseSearchArgv(['search', 'a', 'b', '--all', '--limit=3']), { globals: {}, words: ['a', 'b'], options: { all: true, limit: '3' } });
  assert.deepEqual(parseSearchArgv(['--home', '/h', '--json', 'search', 'a', '--role', 'user', 'b', '--quiet']), {
    globals: { home: '/h', json: true, quiet: true },
    words: ['a', 'b'],
    options: { role: 'user' },
  });
  for (const argv of [
    ['search'],
    ['search', '--all'],
    ['search', 'a', '--help'],
    ['search', 'a', '-h'],
    ['search', 'a', '--bogus'],
    ['search', 'a', '--limit'],
    ['search', 'a', '--limit', '-1'],
    ['search', 'a', '--'],
    ['--all', 'search', 'a'],
    ['files', 'a'],
  ]) {
    assert.equal(parseSearchArgv(argv), null, argv.join(' '));
  }
});

test('the lean path and the full command line print the same JSON, table and exit code', () => {
  const { home, ws } = store();
  baton(['search', 'alpha', '--all', '--json'], { home, cwd: ws }); // builds the index: both runs below read it
  const cases: string[][] = [
    ['search', 'alpha', '--all', '--json'],
    ['--json', 'search', 'retry', '--all', '--limit', '1'],
    ['--home', home, 'search', 'alpha', '--cwd', ws, '--json'],
    ['search', 'retry', `--cwd=${ws}`, '--type', 'context.appended', '--json'],
    ['search', 'alpha', 'retry', '--all'],
    ['search', 'alpha', '--all', '--quiet'],
    ['search', 'nothing-like-it', '--all'],
    ['search', 'alpha'],
  ];
  for (const args of cases) {
    const lean = baton(args, { home, cwd: ws });
    const full = baton(args, { home, cwd: ws, env: FULL });
    assert.equal(lean.code, 0, `${args.join(' ')}: ${lean.stderr}`);
    assert.equal(lean.code, full.code, args.join(' '));
    if (args.includes('--json')) {
      assert.ok(lean.json.hits.length > 0, args.join(' '));
      assert.deepEqual(lean.json, full.json, args.join(' '));
    }
    assert.equal(lean.stdout, full.stdout, args.join(' '));
    assert.equal(lean.stderr, full.stderr, args.join(' '));
  }
});

test('refusals of the lean path are those of the full command line, and change nothing', () => {
  const { home, ws } = store();
  baton(['search', 'alpha', '--all'], { home, cwd: ws });
  const cases: string[][] = [
    ['search', 'alpha', '--limit', '0', '--json'],
    ['search', 'alpha', '--role', 'wizard'],
    ['search', 'alpha', '--since', 'yesterday', '--json'],
    ['search', '"*"', '--all'],
    ['search', 'alpha', '--bogus'],
    ['search', 'alpha', '--limit'],
    ['search', '--all'],
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
  const lean = baton(['search', '--help']);
  assert.equal(lean.code, 0);
  assert.match(lean.stdout, /--agent <agent>/);
});

test('the lean bundle searches without the full command line next to it', () => {
  const { home } = store();
  const dir = tmpDir('baton-lean-');
  fs.copyFileSync(join(ROOT, 'dist', 'search.cjs'), join(dir, 'search.cjs'));
  const env = { ...process.env, BATON_HOME: home, NO_COLOR: '1', NODE_PATH: join(ROOT, 'node_modules') };
  const r = spawnSync(process.execPath, [join(dir, 'search.cjs'), 'search', 'alpha', '--all', '--json'], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const full = baton(['search', 'alpha', '--all', '--json'], { home, env: FULL });
  assert.deepEqual(JSON.parse(r.stdout), full.json);
  const help = spawnSync(process.execPath, [join(dir, 'search.cjs'), 'search', '--help'], { env, encoding: 'utf8' });
  assert.notEqual(help.status, 0);
  assert.match(help.stderr, /cli\.cjs/);
});
