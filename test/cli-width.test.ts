// Tables fit the terminal (issue 29.10): on an 80-column pseudo-terminal `session list` cuts
// titles, paths and ids with `…`; piped, every cell is whole.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, ROOT, baton, tmpDir } from './helpers.ts';

const PTY = join(ROOT, 'test', 'fixtures', 'pty-run.py');
const TITLE = 'A rather long title about retries with exponential backoff in the upload client';

function onTerminal(cols: number, args: string[], env: Record<string, string>): string {
  const r = spawnSync('python3', [PTY, String(cols), process.execPath, BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  return r.stdout;
}

test('session list fits an 80-column terminal (cut with …) and prints whole cells into a pipe', () => {
  const home = tmpDir();
  const ws = join(tmpDir(), 'a-workspace-folder-with-a-long-name', 'and-deeper');
  fs.mkdirSync(ws, { recursive: true });
  for (const t of [TITLE, 'Short']) assert.equal(baton(['session', 'new', t, '--cwd', ws], { home }).code, 0);
  const lines = onTerminal(80, ['session', 'list', '--all'], { BATON_HOME: home }).split('\n').filter(Boolean);
  assert.equal(lines.length, 3);
  for (const l of lines) assert.ok([...l].length <= 80, `${[...l].length} columns: ${l}`);
  assert.ok(lines.some((l) => l.includes('…')), 'cut with an ellipsis');
  const wide = onTerminal(200, ['session', 'list', '--all'], { BATON_HOME: home });
  assert.ok(!wide.includes('…') || wide.includes(`${TITLE.slice(0, 39)}…`), 'a wide terminal cuts only the 40-column title');
  const piped = baton(['session', 'list', '--all'], { home });
  assert.ok(piped.stdout.split('\n').some((l) => l.length > 80), 'a pipe is not cut to a width');
  assert.ok(piped.stdout.includes(ws), 'the whole workspace path');
});
