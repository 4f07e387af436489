// event/replay's checkpoints (src/ops/events.ts readPage): while skipping to a page, every
// CHECKPOINT_EVERY-th verified position is offered; a page read from such a position is the
// page read from the start, event for event (the web page jumps into long logs this way).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { encodeEvent } from '../src/core/events.ts';
import { CHECKPOINT_EVERY, type LogPosition, START, readPage } from '../src/ops/events.ts';
import { tmpDir } from './helpers.ts';

test('checkpoints met while skipping are exact resume points; none past the page start', () => {
  const n = CHECKPOINT_EVERY * 2 + 100;
  const path = join(tmpDir(), 'events.jsonl');
  let h = '';
  const lines: string[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const enc = encodeEvent(seq, new Date(Date.UTC(2026, 0, 1) + seq).toISOString(), { type: 'context.appended', surface: 'cli', actor: 'user', payload: { text: `line ${seq} ${'é'.repeat(seq % 7)}` } }, h);
    h = enc.h;
    lines.push(enc.line);
  }
  fs.writeFileSync(path, lines.join(''));
  const seen: LogPosition[] = [];
  const skipTo = n - 50;
  const whole = readPage(path, START, skipTo, 1 << 20, new Map(), (p) => seen.push(p));
  assert.deepEqual(
    seen.map((p) => p.seq),
    [CHECKPOINT_EVERY, CHECKPOINT_EVERY * 2],
  );
  assert.equal(whole.events.length, 50);
  for (const p of seen) {
    const again = readPage(path, p, skipTo, 1 << 20, new Map());
    assert.deepEqual(again.events, whole.events, `from the checkpoint at seq ${p.seq}`);
    assert.equal(again.corrupt, null);
  }
  // A page that starts before a checkpoint offers none (no position past what was asked).
  const early: LogPosition[] = [];
  readPage(path, START, 10, 1 << 20, new Map(), (p) => early.push(p));
  assert.deepEqual(early, []);
});
