// The hook path stays lean: dist/hook.cjs bundles no commander, zod, better-sqlite3,
// jsonc-parser, postgres (team mode) or src/index (install/status/verify live in the CLI bundle).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { CJS_HEAD, CJS_TAIL } from '../src/hooks/codecache.ts';
import { baton, ROOT, tmpDir } from './helpers.ts';

const FORBIDDEN = [/node_modules\/commander\//, /node_modules\/zod\//, /node_modules\/better-sqlite3\//, /node_modules\/jsonc-parser\//, /node_modules\/postgres\//, /^src\/team\//, /^src\/index\//, /^src\/cli\//, /^src\/providers\/(install|settings|shim)\.ts$/];

test('the hook bundle contains no commander, zod, better-sqlite3, jsonc-parser, postgres, src/team, src/index or install code', async () => {
  const out = join(tmpDir(), 'hook.cjs');
  const r = await build({
    entryPoints: [join(ROOT, 'src/hooks/entry.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    metafile: true,
    logLevel: 'silent',
    external: ['better-sqlite3'],
    absWorkingDir: ROOT,
  });
  const inputs = Object.keys(r.metafile.inputs);
  assert.ok(inputs.includes('src/hooks/dispatch.ts'));
  for (const re of FORBIDDEN) assert.deepEqual(inputs.filter((i) => re.test(i)), [], String(re));
  const text = fs.readFileSync(out, 'utf8');
  assert.ok(!/require\(["']better-sqlite3["']\)/.test(text));
  assert.ok(!/require\(["'](commander|zod|jsonc-parser)["']\)/.test(text));
});

/** dist/hook.cjs and each agent's dist/hook.<agent>.cjs (docs/adr/0092). */
const hookBundles = (): string[] => fs.readdirSync(join(ROOT, 'dist')).filter((n) => /^hook(\.[a-z]+)?\.cjs$/.test(n));
const AGENTS = ['claude', 'codex', 'copilot', 'droid', 'gemini', 'kilo', 'opencode', 'pi', 'qwen'];

test('the built hook bundles (when present) require none of them either', () => {
  if (!fs.existsSync(join(ROOT, 'dist', 'hook.cjs'))) return;
  for (const name of hookBundles()) {
    const text = fs.readFileSync(join(ROOT, 'dist', name), 'utf8');
    for (const m of ['better-sqlite3', 'commander', 'zod', 'jsonc-parser', 'postgres']) assert.ok(!new RegExp(`require\\(["']${m}["']\\)`).test(text), `${name}: ${m}`);
    for (const m of ['jsonc-parser', 'commander', 'zod', 'postgres']) assert.ok(!text.includes(`node_modules/${m}`), `${name}: ${m} inlined`);
  }
});

test("the hook bundles are built already wrapped as Node's loader wraps a module (the loader compiles them as they are); the capture bundle stays a plain module", () => {
  assert.ok(fs.existsSync(join(ROOT, 'dist', 'hook.cjs')), 'npm test builds dist/ first');
  for (const name of hookBundles()) {
    const text = fs.readFileSync(join(ROOT, 'dist', name), 'latin1');
    assert.ok(text.startsWith(`${CJS_HEAD}"use strict";`), name);
    assert.ok(text.endsWith(CJS_TAIL), name);
  }
  assert.ok(!fs.readFileSync(join(ROOT, 'dist', 'hook-transcript.cjs'), 'latin1').startsWith(CJS_HEAD));
});

test('the built hook bundles load only buffer, fs, path and vm (child_process lazily, to defer a capture): no node:os, no node:crypto, no namespace-import copies, no object standing in for a node module', () => {
  assert.ok(fs.existsSync(join(ROOT, 'dist', 'hook.cjs')), 'npm test builds dist/ first');
  assert.deepEqual(hookBundles().sort(), ['hook.cjs', ...AGENTS.map((a) => `hook.${a}.cjs`)].sort());
  for (const name of hookBundles()) {
    const text = fs.readFileSync(join(ROOT, 'dist', name), 'utf8');
    const required = new Set([...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
    // node:os costs ~0.5 ms to load (docs/adr/0018): src/core/host.ts loads it only where nothing else will do.
    // node:child_process only inside deferCapture (an end event of an agent that writes its transcript as it exits), never at load.
    // (The agents' bundles have their identifiers minified: the name is checked in dist/hook.cjs,
    // the behaviour by the test below that lists what a prompt loads.)
    const lazy = text.indexOf('require("node:child_process")');
    if (lazy >= 0) {
      const fn = name === 'hook.cjs' ? text.lastIndexOf('function deferCapture(', lazy) : text.lastIndexOf('function ', lazy);
      assert.ok(fn >= 0 && lazy - fn < 200, `${name}: node:child_process is required only inside deferCapture`);
      assert.equal(text.indexOf('require("node:child_process")', lazy + 1), -1, `${name}: once`);
      required.delete('node:child_process');
    }
    // node:vm: the loader (dist/hook-boot.cjs) has loaded it already; the bundle compiles the capture
    // bundle through its code cache and writes its own cache itself (docs/adr/0080).
    assert.deepEqual([...required].sort(), ['node:buffer', 'node:fs', 'node:path', 'node:vm'], name);
    // esbuild's __toESM would copy every module property (running fs's lazy getters) per import.
    assert.ok(!/__toESM\(require\("node:/.test(text), `${name}: a namespace import of a node module survived the build`);
    // Nor an object of a module's members per importing module (built at every load; docs/adr/0092): lazy getters alone.
    for (const m of text.matchAll(/var \w+=\{(\w+):/g)) assert.ok(!/^(openSync|statSync|lstatSync|readFileSync|join|resolve)$/.test(m[1]), `${name}: an object of node members (${m[0]})`);
  }
});

test("each agent's hook bundle holds that agent's adapter alone; dist/hook.cjs holds all nine", () => {
  const titles = (name: string): string[] => [...fs.readFileSync(join(ROOT, 'dist', name), 'utf8').matchAll(/\{name:"([a-z]+)",title:/g)].map((m) => m[1]).sort();
  // opencode and Kilo are made by one function (src/providers/opencode.ts): the literal names the others.
  const literal = AGENTS.filter((a) => a !== 'opencode' && a !== 'kilo');
  assert.deepEqual(titles('hook.cjs'), literal.sort());
  for (const a of literal) assert.deepEqual(titles(`hook.${a}.cjs`), [a], a);
  for (const a of ['opencode', 'kilo']) assert.deepEqual(titles(`hook.${a}.cjs`), [], a);
});

test('the hook loader dist/hook-boot.cjs loads only fs, path and vm, and carries the sha-256 of each hook bundle beside it', () => {
  const p = join(ROOT, 'dist', 'hook-boot.cjs');
  assert.ok(fs.existsSync(p), 'npm test builds dist/ first');
  const text = fs.readFileSync(p, 'utf8');
  const required = new Set([...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]));
  assert.deepEqual([...required].sort(), ['node:fs', 'node:path', 'node:vm']);
  for (const name of hookBundles()) {
    const sha = createHash('sha256')
      .update(fs.readFileSync(join(ROOT, 'dist', name)))
      .digest('hex');
    assert.ok(text.includes(JSON.stringify(sha)), `the build hash of ${name}`);
  }
});

test('the capture bundle dist/hook-transcript.cjs carries no copy of what dist/hook.cjs holds: it takes those modules from its table, and refuses to run without it', () => {
  const p = join(ROOT, 'dist', 'hook-transcript.cjs');
  assert.ok(fs.existsSync(p), 'npm test builds dist/ first');
  const text = fs.readFileSync(p, 'utf8');
  // The redactor, the hash and the file helpers live in dist/hook.cjs (src/hooks/shared-modules.ts, docs/adr/0072).
  for (const fn of ['function redactDefault(', 'function sha256Wasm(', 'function writeFileAtomic(', 'function appendDurable(', 'function cursorPath(']) {
    assert.ok(!text.includes(fn), `a copy of ${fn}`);
    assert.ok(fs.readFileSync(join(ROOT, 'dist', 'hook.cjs'), 'utf8').includes(fn), `dist/hook.cjs holds ${fn}`);
  }
  assert.ok(text.includes("Symbol.for(\"baton.hook-modules\")"), 'the look-up of the table');
  // Required without dist/hook.cjs (no table on globalThis): a plain error naming the module, not a broken capture.
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(p)})`], { encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /dist\/hook-transcript\.cjs runs inside dist\/hook\.cjs \(it takes src\/[\w/.-]+\.ts from it\)/);
});

test('postgres lives only in dist/team.cjs: the command line and the app server bundles do not carry it', () => {
  const team = join(ROOT, 'dist', 'team.cjs');
  assert.ok(fs.existsSync(team), 'npm test builds dist/ first');
  assert.ok(fs.readFileSync(team, 'utf8').includes('node_modules/postgres'), 'the team bundle inlines postgres');
  for (const b of ['hook.cjs', 'hook-boot.cjs', 'cli.cjs', 'list.cjs', 'lib.cjs']) {
    const text = fs.readFileSync(join(ROOT, 'dist', b), 'utf8');
    assert.ok(!text.includes('node_modules/postgres'), `${b} inlines postgres`);
    assert.ok(!/require\(["']postgres["']\)/.test(text), `${b} requires postgres`);
  }
});

test('a prompt hook loads none of the modules behind fs lazy getters (fs/promises, readline, watchers), nor child_process (a deferred capture\'s alone): the build keeps fs.promises a getter', () => {
  const root = tmpDir();
  const home = join(root, 'store');
  const list = join(root, 'modules.txt');
  const preload = join(root, 'list-modules.cjs');
  // At exit, the built-in modules this process loaded (the hook's own and Node's).
  fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
  const sid = 'b0a7b0a7-1111-4222-8333-444455556666';
  const env = { NODE_OPTIONS: `--require ${preload}` };
  const start = baton(['hook', 'claude'], { home, env, input: JSON.stringify({ session_id: sid, cwd: root, hook_event_name: 'SessionStart', source: 'startup' }) });
  assert.equal(start.code, 0, start.stderr);
  const r = baton(['hook', 'claude'], { home, env, input: JSON.stringify({ session_id: sid, cwd: root, hook_event_name: 'UserPromptSubmit', prompt: 'add a retry' }) });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /TASK_POINTER_V2/);
  const loaded = fs.readFileSync(list, 'utf8').split('\n');
  assert.ok(loaded.includes('NativeModule fs'), 'the list is the real one');
  for (const m of ['internal/fs/promises', 'readline', 'internal/readline/interface', 'internal/fs/watchers', 'internal/fs/dir', 'string_decoder', 'child_process']) assert.ok(!loaded.includes(`NativeModule ${m}`), m);
});

test("a prompt hook calls none of node:path's normalisers (join, normalize, resolve, relative): Node's start calls none of join's, whose first call compiles it (~0.25 M instructions)", () => {
  const root = tmpDir();
  const home = join(root, 'store');
  const calls = join(root, 'calls.txt');
  const preload = join(root, 'count-path.cjs');
  // Wraps node:path's members before the hook loads; at exit, the calls baton's hook files made
  // (not Node's own module loader). Each process writes the file: the last run's calls remain.
  fs.writeFileSync(
    preload,
    `const p = require('node:path'); const seen = [];
for (const k of ['join', 'normalize', 'resolve', 'relative']) { const f = p[k]; p[k] = function (...a) { const at = new Error().stack.split('\\n')[2] ?? ''; if (/dist\\/hook/.test(at)) seen.push(k + ' ' + a.join(' ') + ' ' + at.trim()); return f.apply(this, a); }; }
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(calls)}, seen.join('\\n')));\n`,
  );
  const sid = 'b0a7b0a7-1111-4222-8333-444455557777';
  const env = { NODE_OPTIONS: `--require ${preload}` };
  const start = baton(['hook', 'claude'], { home, env, input: JSON.stringify({ session_id: sid, cwd: root, hook_event_name: 'SessionStart', source: 'startup' }) });
  assert.equal(start.code, 0, start.stderr);
  // The first prompt adds the prompt's code to the code cache (a write of its own); the second is every prompt after.
  for (const prompt of ['add a retry', 'and a test']) {
    const r = baton(['hook', 'claude'], { home, env, input: JSON.stringify({ session_id: sid, cwd: root, hook_event_name: 'UserPromptSubmit', prompt }) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /TASK_POINTER_V2/);
  }
  assert.ok(fs.existsSync(calls), 'the preload ran');
  assert.equal(fs.readFileSync(calls, 'utf8'), '', "node:path's normalisers called by a prompt");
});
