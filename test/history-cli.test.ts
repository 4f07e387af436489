// The flag parsers and the progress line of `baton history` (pure functions, no process).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAgents, parseSince } from '../src/cli/history.ts';
import { parseWhen } from '../src/cli/when.ts';
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

test('one WHEN rule for every command: a time without a zone is UTC, a date that does not exist and an age past 36500d or in weeks are USAGE', () => {
  const now = NOW.getTime();
  assert.equal(new Date(parseWhen('2026-11-01T09:30', '--since', now)).toISOString(), '2026-11-01T09:30:00.000Z');
  assert.equal(new Date(parseWhen('2026-11-01 09:30:15', '--until', now)).toISOString(), '2026-11-01T09:30:15.000Z');
  assert.equal(new Date(parseWhen('2026-11-01', '--since', now)).toISOString(), '2026-11-01T00:00:00.000Z');
  assert.equal(parseWhen('0d', '--until', now, { allowZero: true }), now);
  assert.equal(parseWhen('36500d', '--since', now), now - 36500 * 86_400_000);
  for (const bad of ['2026-02-30', '2026-02-30T10:00:00Z', '99999999999w', '2w', '36501d', '99999999999d', 'Nov 1 2026', '2026-11-01T24:30']) {
    assert.throws(() => parseWhen(bad, '--since', now, { allowZero: true }), (e: any) => e.code === 'USAGE' && e.message.startsWith('--since '), bad);
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
