// The picker's rules without a terminal (src/cli/pick-model.ts): relative time, the fuzzy
// filter, the window over the list, the screen's division, a row's width.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type PickRow, ago, filterRows, fuzzyScore, layoutFor, rowLine, windowTop } from '../src/cli/pick-model.ts';
import { displayWidth } from '../src/cli/output.ts';

const row = (id: string, title: string, extra: Partial<PickRow> = {}): PickRow => ({
  id,
  title,
  workspace: '/w/proj',
  git_root: null,
  last_touched_at: '2026-12-01T10:00:00.000Z',
  pointer_status: null,
  agents: [],
  pointer_text: null,
  first_prompt: null,
  extras: true,
  ...extra,
});
const NOW = Date.parse('2026-12-01T10:05:00.000Z');

test('a moment in the future shows as now, never "in 3m"', () => {
  assert.equal(ago('2026-12-01T10:08:00.000Z', NOW), 'now');
  assert.equal(ago('2026-12-01T10:02:00.000Z', NOW), '3m ago');
  assert.equal(ago('not a time', NOW), '-');
});

test('the filter is fuzzy over titles, bounded over long fields, best first, newest among equals', () => {
  const rows = [
    row('a', 'docs: rewrite the README'),
    row('b', 'fix upload retry budget', { pointer_text: 'Goal: ship the retry budget\nNext: wire the backoff table' }),
    row('c', 'cache warmup', { first_prompt: 'warm the index cache before the first query' }),
    row('d', 'upload retry'),
  ];
  assert.deepEqual(filterRows(rows, 'rdme').map((r) => r.id), ['a']);
  assert.deepEqual(filterRows(rows, 'backoff').map((r) => r.id), ['b']);
  assert.deepEqual(filterRows(rows, 'first query').map((r) => r.id), ['c']);
  // "upload retry" is contiguous in d's title and in b's: the shorter spread ranks first, the listing's order breaks ties.
  assert.deepEqual(filterRows(rows, 'upload retry').map((r) => r.id), ['b', 'd']);
  assert.deepEqual(filterRows(rows, '').map((r) => r.id), ['a', 'b', 'c', 'd']);
  // A term spread over a long text is no match there (it would match almost anything).
  assert.equal(fuzzyScore('gsy', 'goal: ship the retry budget', 10), null);
  assert.notEqual(fuzzyScore('gsy', 'goal: ship the retry budget'), null);
});

test('the window keeps the selection on screen, moving as little as it can', () => {
  assert.equal(windowTop(0, 0, 10, 100), 0);
  assert.equal(windowTop(12, 0, 10, 100), 3);
  assert.equal(windowTop(5, 3, 10, 100), 3);
  assert.equal(windowTop(2, 3, 10, 100), 2);
  assert.equal(windowTop(99, 0, 10, 100), 90);
  assert.equal(windowTop(0, 50, 10, 4), 0);
});

test('80x24: every line fits; a row is exactly its width whatever the title', () => {
  const l = layoutFor(80, 24);
  assert.equal(1 + l.list + 1 + l.preview + 1, 23); // one line left for Ink
  for (const title of ['short', 'x'.repeat(200), '中文标题很长很长很长很长很长很长很长很长很长很长']) {
    assert.equal(displayWidth(rowLine(row('a', title), 78, NOW)), 78);
  }
  assert.ok(layoutFor(40, 5).list >= 3);
});
