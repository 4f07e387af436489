// Colour on a terminal only, and no stdout stream where nothing is coloured: `session list
// --json` into a pipe (what a resume picker runs) must not load Node's stream modules, which
// reading process.stdout does (docs/adr/0086).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { color } from '../src/cli/output.ts';
import { BIN, tmpDir } from './helpers.ts';

function withTty<T>(env: Record<string, string | undefined>, fn: () => T): T {
  const had = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
  const saved = { NO_COLOR: process.env.NO_COLOR, TERM: process.env.TERM };
  Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
  for (const [k, v] of Object.entries({ NO_COLOR: undefined, TERM: 'xterm', ...env })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return fn();
  } finally {
    if (had) Object.defineProperty(process.stdout, 'isTTY', had);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

test('colours wrap the text on a terminal, and an inner close reopens the outer attribute', () => {
  withTty({}, () => {
    assert.equal(color.red('x'), '\x1b[31mx\x1b[39m');
    assert.equal(color.bold(`a ${color.dim('b')} c`), '\x1b[1ma \x1b[2mb\x1b[22m\x1b[1m c\x1b[22m');
    assert.equal(color.green(`a ${color.yellow('b')} c`), '\x1b[32ma \x1b[33mb\x1b[32m c\x1b[39m');
  });
});

test('no colour with NO_COLOR, with TERM=dumb, or off a terminal', () => {
  withTty({ NO_COLOR: '1' }, () => assert.equal(color.bold('x'), 'x'));
  withTty({ TERM: 'dumb' }, () => assert.equal(color.red('x'), 'x'));
  const had = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
  Object.defineProperty(process.stdout, 'isTTY', { value: false, configurable: true });
  try {
    assert.equal(color.dim('x'), 'x');
  } finally {
    if (had) Object.defineProperty(process.stdout, 'isTTY', had);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
  }
});

test('`session list --json` into a pipe, colour not forbidden, loads none of the stream modules', (t) => {
  const home = tmpDir();
  const dir = tmpDir('baton-preload-');
  t.after(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // What Node loads for `node -e 0` (some stream helpers are in every start) is left out.
  const preload = join(dir, 'preload.cjs');
  fs.writeFileSync(preload, "process.on('exit', () => require('fs').writeFileSync(process.env.MODULES_OUT, process.moduleLoadList.join('\\n')));\n");
  const env: Record<string, string | undefined> = { ...process.env, BATON_HOME: home };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  const modules = (args: string[], out: string): string[] => {
    const r = spawnSync(process.execPath, ['-r', preload, ...args], { env: { ...env, MODULES_OUT: out } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    if (args[0] === BIN) assert.deepEqual(JSON.parse(r.stdout).sessions, []);
    return fs.readFileSync(out, 'utf8').split('\n');
  };
  const base = new Set(modules(['-e', '0'], join(dir, 'base.txt')));
  const extra = modules([BIN, 'session', 'list', '--all', '--json'], join(dir, 'list.txt')).filter((m) => !base.has(m));
  assert.deepEqual(
    extra.filter((m) => /^NativeModule (stream|net|tty|string_decoder|internal\/streams\/|internal\/fs\/sync_write_stream)/.test(m)),
    [],
  );
});
