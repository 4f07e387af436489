// Exports and imports over a few MB draw a progress bar on a TTY (stderr), and nothing when
// stderr is not a terminal. The TTY is a real pseudo-terminal (util-linux `script`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BIN, baton, tmpDir } from './helpers.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

test('a bar on a TTY for a 6 MiB export and its import; none without a TTY', { skip: !hasScript && 'util-linux script is not installed' }, () => {
  const root = tmpDir();
  dirs.push(root);
  const env = { BATON_HOME: join(root, 'store'), BATON_INSTANCE: 'tester', HOME: root };
  const id = baton(['session', 'new', 'Big', '--cwd', root], { env }).stdout.trim();
  for (let i = 0; i < 6; i++) {
    const r = baton(['session', 'append', id, '--stdin'], { env, input: `${i} ${'word '.repeat(180_000)}` });
    assert.equal(r.code, 0, r.stderr);
  }
  const tty = (args: string[]): string => {
    const cmd = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env: { ...process.env, ...env, NO_COLOR: '1' }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout);
    return r.stdout;
  };
  const out = tty(['session', 'export', id, '--out', join(root, 'a.zip')]);
  assert.match(out, /export \(MiB\) \[#+-+\] \d\/6/, 'drawn as it goes');
  assert.match(out, /export \(MiB\) \[#{30}\] 6\/6\r?\n/, 'and full at the end');
  const imp = tty(['session', 'import', join(root, 'a.zip')]);
  assert.match(imp, /import \(MiB\) \[#{30}\] \d\/\d\r?\n/);
  const plain = baton(['session', 'export', id, '--out', join(root, 'b.zip')], { env });
  assert.equal(plain.code, 0);
  assert.equal(plain.stderr, '', 'no bar when stderr is not a terminal');
});
