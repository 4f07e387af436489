// Tables line up on a terminal: widths are display widths (colour escapes take no column,
// CJK characters two), control characters in cells are replaced, long titles are cut.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { displayWidth, fitWidth, printable, table } from '../src/cli/output.ts';
import { baton, tmpDir } from './helpers.ts';

const RED = (s: string) => `\x1b[31m${s}\x1b[39m`;

test('display width: colour escapes take no column, CJK and emoji two, combining marks none', () => {
  assert.equal(displayWidth(RED('ok')), 2);
  assert.equal(displayWidth('日本語'), 6);
  assert.equal(displayWidth('한국'), 4);
  assert.equal(displayWidth('ＡＢ'), 4);
  assert.equal(displayWidth('🚀x'), 3);
  assert.equal(displayWidth('cafe\u0301'), 4);
  assert.equal(displayWidth('plain'), 5);
});

test('control characters become a space (tab, newline) or ?; colour escapes stay', () => {
  assert.equal(printable('a\tb\nc'), 'a b c');
  assert.equal(printable('x\x1b]0;title\x07y'), 'x?]0;title?y');
  assert.equal(printable('\x1b[2Jz'), '?[2Jz');
  assert.equal(printable(RED('ok')), RED('ok'));
  assert.equal(printable('del\x7f\x9b'), 'del??');
});

test('fitWidth cuts by columns, never in the middle of a wide character', () => {
  assert.equal(fitWidth('short', 10), 'short');
  assert.equal(fitWidth('abcdefghijkl', 6), 'abcde…');
  const cut = fitWidth('日本語のタイトル', 6);
  assert.equal(cut, '日本…');
  assert.ok(displayWidth(cut) <= 6);
});

test('a table aligns colour-coded, CJK and tabbed cells to the same column', () => {
  const lines = table(
    [
      [RED('active'), '日本語のタイトル', 'x'],
      ['suspended', 'tab\there', 'y'],
      ['ok', 'plain', 'z'],
    ],
    ['STATE', 'TITLE', 'LAST'],
  );
  const lastCol = lines.map((l) => displayWidth(l.slice(0, l.lastIndexOf(' ') + 1)));
  assert.deepEqual(new Set(lastCol).size, 1, JSON.stringify(lines));
  assert.ok(!lines.some((l) => l.includes('\t')));
});

test('baton session list: a CJK title, a tab and an escape sequence keep the columns aligned', () => {
  const home = tmpDir();
  const cwd = tmpDir();
  try {
    for (const t of ['日本語のセッション', 'tab\tin\ttitle', 'esc \x1b[2J clear', 'plain']) {
      const r = baton(['session', 'new', t], { home, cwd });
      assert.equal(r.code, 0, r.stderr);
    }
    const long = baton(['session', 'new', `long ${'x'.repeat(100)}`], { home, cwd });
    assert.equal(long.code, 0, long.stderr);
    const r = baton(['session', 'list'], { home, cwd });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 6);
    assert.ok(!/[\x00-\x08\x0b-\x1f]/.test(r.stdout), 'no control characters reach the terminal');
    // The WORKSPACE column (the temp dir's path) starts at the same display column on every row.
    const at = lines.slice(1).map((l) => displayWidth(l.slice(0, l.indexOf(cwd))));
    assert.equal(new Set(at).size, 1, r.stdout);
    assert.ok(lines.some((l) => l.includes('日本語のセッション')));
    assert.ok(lines.some((l) => l.includes('tab in title')));
    assert.ok(lines.some((l) => /long x+…/.test(l)), 'a long title is cut with …');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});
