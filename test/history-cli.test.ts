// The flag parsers and the progress line of `baton history` (pure functions, no process).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAgents, parseSince } from '../src/cli/history.ts';
import { formatRate } from '../src/cli/progress.ts';

const NOW = new Date('2026-12-02T12:00:00Z');

test('--since takes a date, an ISO date and time, or a duration back from now', () => {
  assert.equal(parseSince('2026-11-01', NOW).toISOString(), '2026-11-01T00:00:00.000Z');
  assert.equal(parseSince('2026-11-01T09:30:00Z', NOW).toISOString(), '2026-11-01T09:30:00.000Z');
  assert.equal(parseSince('2026-11-01T09:30:00+02:00', NOW).toISOString(), '2026-11-01T07:30:00.000Z');
  assert.equal(parseSince('7d', NOW).toISOString(), '2026-11-25T12:00:00.000Z');
  for (const bad of ['2026-02-31', '2026-13-01', 'yesterday', '', '2026-11-01T25:00:00Z', '0d']) {
    assert.throws(() => parseSince(bad, NOW), (e: any) => e.code === 'USAGE', bad);
  }
});

test('agents: none means all, an unknown one is USAGE naming the known, agents with --all is USAGE', () => {
  assert.equal(parseAgents([], false).length, 9);
  assert.deepEqual(parseAgents(['codex', 'claude', 'codex'], false), ['codex', 'claude']);
  assert.throws(() => parseAgents(['clode'], false), (e: any) => e.code === 'USAGE' && /known: claude, codex/.test(e.message));
  assert.throws(() => parseAgents(['claude'], true), (e: any) => e.code === 'USAGE');
});

test('the progress line: sessions, MB, rate and ETA', () => {
  assert.equal(formatRate('importing', { done: 10, total: 40, bytesDone: 50e6, bytesTotal: 200e6 }, 10_000), 'importing 10/40 sessions, 50.0/200.0 MB, 5.0 MB/s, ETA 30s');
  assert.equal(formatRate('importing', { done: 0, total: 40, bytesDone: 0, bytesTotal: 200e6 }, 0), 'importing 0/40 sessions, 0.0/200.0 MB, 0.0 MB/s, ETA -');
});
