// The handoff block (src/hooks/handoff.ts): its fields, order (newest first), seq citations,
// the budget, ITEMS_OMITTED, the no-items case, the spec in BATON_HANDOFF, and the claim that
// makes a start show it once.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type HandoffSpec, episodeOpenedAt, formatHandoffSpec, handoffAtStart, oneLine, parseHandoffSpec, renderHandoff } from '../src/hooks/handoff.ts';
import type { RefNow } from '../src/store/refs.ts';
import { type Recent, emptyRecent, readRecent } from '../src/transcripts/capture.ts';
import { tmpDir } from './helpers.ts';

const SPEC: HandoffSpec = { id: 'abcdef0123456789', from: 'claude', to: 'gemini', budget: 4096, episode: 'claude-mx5g1xyd-uw4h' };

function recentOf(n: number, text = (i: number) => `message number ${i}`): Recent {
  const r = emptyRecent();
  r.items = n * 3;
  r.last_agent = 'claude';
  r.last_agent_session = 's-1';
  r.last_at = '2026-12-02T00:40:00.000Z';
  for (let i = 1; i <= n; i++) {
    r.users.push({ seq: i * 3 - 2, at: `2026-12-02T00:${String(i).padStart(2, '0')}:00.000Z`, agent: 'claude', text: `ask ${text(i)}` });
    r.assistants.push({ seq: i * 3 - 1, at: `2026-12-02T00:${String(i).padStart(2, '0')}:30.000Z`, agent: 'claude', text: `done ${text(i)}` });
    r.files.push({ path: `src/f${i}.ts`, seq: i * 3, at: '2026-12-02T00:00:00.000Z' });
  }
  return r;
}

const lines = (block: string) => block.split('\n').filter(Boolean);
const field = (block: string, key: string) => lines(block).find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1);

test('the block: markers, who handed over, messages newest first each citing its seq, files, ITEMS_OMITTED', () => {
  const { block, cited, itemsOmitted } = renderHandoff({ sessionId: 'task-1', spec: SPEC, recent: recentOf(3), refs: [] });
  const l = lines(block);
  assert.equal(l[0], 'HANDOFF_BEGIN');
  assert.equal(l.at(-1), 'HANDOFF_END');
  assert.equal(field(block, 'FROM_AGENT'), 'claude');
  assert.equal(field(block, 'FROM_EPISODE'), 'claude-mx5g1xyd-uw4h');
  assert.equal(field(block, 'FROM_AT'), '2026-12-02T00:40:00.000Z');
  assert.equal(field(block, 'TO_AGENT'), 'gemini');
  assert.equal(field(block, 'ITEMS'), '9');
  const msgs = l.filter((x) => /^(REQUEST|CONCLUSION) /.test(x));
  assert.deepEqual(
    msgs.map((x) => Number(/seq=(\d+)/.exec(x)![1])),
    [8, 7, 5, 4, 2, 1],
  );
  assert.match(msgs[0], /^CONCLUSION seq=8 at=2026-12-02T00:03:30.000Z agent=claude: done message number 3$/);
  assert.match(msgs[1], /^REQUEST seq=7 .*: ask message number 3$/);
  assert.deepEqual(
    l.filter((x) => x.startsWith('FILE ')),
    ['FILE seq=9 path=src/f3.ts', 'FILE seq=6 path=src/f2.ts', 'FILE seq=3 path=src/f1.ts'],
  );
  assert.deepEqual(cited, [9, 8, 7, 6, 5, 4, 3, 2, 1]);
  assert.equal(itemsOmitted, 0);
  assert.equal(field(block, 'ITEMS_OMITTED'), '0');
  assert.ok(l.indexOf('ITEMS_OMITTED=0') === l.length - 2);
});

test('the budget: never exceeded; the newest request and conclusion kept first; what is left out is counted', () => {
  const recent = recentOf(12, (i) => `${i} ${'x'.repeat(500)}`);
  for (const budget of [512, 700, 1200, 2048, 4096]) {
    const { block, cited, itemsOmitted } = renderHandoff({ sessionId: 'task-1', spec: { ...SPEC, budget }, recent, refs: [] });
    assert.ok(Buffer.byteLength(block) <= budget, `${budget}: ${Buffer.byteLength(block)} bytes`);
    assert.equal(itemsOmitted, recent.items - cited.length);
    assert.equal(field(block, 'ITEMS_OMITTED'), String(itemsOmitted));
    // Every budget from the least (512) up cites the newest request and conclusion: a small one
    // gives up the long instruction for a short one first.
    assert.ok(cited.includes(34) && cited.includes(35), `${budget}: the newest request (34) and conclusion (35) are cited`);
    assert.match(field(block, 'INSTRUCTION') ?? '', budget >= 1200 ? /^This session was handed over/ : /^Handed over from claude, newest first; seq=N cites transcript item N; the task pointer rules\.$/);
  }
  const small = renderHandoff({ sessionId: 'task-1', spec: { ...SPEC, budget: 1200 }, recent, refs: [] });
  const big = renderHandoff({ sessionId: 'task-1', spec: { ...SPEC, budget: 4096 }, recent, refs: [] });
  assert.ok(small.itemsOmitted > big.itemsOmitted);
  // A line cut to fit says so, on a character boundary.
  assert.ok(lines(big.block).some((x) => x.endsWith('…')));
});

test('a multi-byte text is cut on a character boundary', () => {
  const s = oneLine('é'.repeat(100), 51);
  assert.ok(Buffer.byteLength(s) <= 51);
  assert.ok(s.endsWith('…'));
  assert.ok(!s.includes('\uFFFD'));
  assert.equal(oneLine(' a \n\n b\tc ', 100), 'a b c');
});

test('refs are listed with their state', () => {
  const ref = { source: 'other-session', source_version: 4, digest: 'sha256:abc', captured_at: '', expires_at: '' } as unknown as RefNow['ref'];
  const { block } = renderHandoff({ sessionId: 'task-1', spec: SPEC, recent: recentOf(1), refs: [{ ref, current_version: 6, state: 'stale' } as RefNow] });
  assert.ok(lines(block).includes('REF source=other-session state=stale version=4 current=6 digest=sha256:abc'));
});

test('a session with no items: the block says so, cites nothing, FROM_AT from the episode id', () => {
  for (const recent of [null, emptyRecent()]) {
    const { block, cited, itemsOmitted } = renderHandoff({ sessionId: 'task-1', spec: SPEC, recent, refs: [] });
    assert.equal(field(block, 'ITEMS'), '0');
    assert.match(field(block, 'NOTE') ?? '', /no transcript items are recorded/);
    assert.equal(field(block, 'ITEMS_OMITTED'), '0');
    assert.deepEqual(cited, []);
    assert.equal(itemsOmitted, 0);
    assert.equal(field(block, 'FROM_AT'), episodeOpenedAt(SPEC.episode));
  }
  assert.equal(episodeOpenedAt('claude-mx5g1xyd-uw4h'), new Date(Number.parseInt('mx5g1xyd', 36)).toISOString());
  assert.equal(episodeOpenedAt(null), null);
});

test('BATON_HANDOFF: round trip; anything baton did not write is refused (HK001)', () => {
  assert.deepEqual(parseHandoffSpec(formatHandoffSpec(SPEC)), SPEC);
  assert.deepEqual(parseHandoffSpec(formatHandoffSpec({ ...SPEC, episode: null })), { ...SPEC, episode: null });
  for (const bad of ['', 'junk', 'id=ABC,from=claude,to=gemini,budget=4096', 'id=abcdef0123456789,from=claude,to=gemini,budget=10', 'id=abcdef0123456789,from=claude,to=gemini,budget=4096,episode=../x']) {
    assert.throws(() => parseHandoffSpec(bad), (e: { code?: string }) => e.code === 'HK001', bad);
  }
});

test('the claim: the first start of the target agent gets the block, a later one or another agent nothing', () => {
  const dir = tmpDir();
  fs.mkdirSync(join(dir, 'transcripts'));
  const recent = recentOf(2);
  fs.writeFileSync(join(dir, 'transcripts', 'recent.json'), JSON.stringify(recent));
  // The file read is capture.ts's projection.
  assert.deepEqual(readRecent(dir), recent);
  const start = (agent: string, ps: string) =>
    handoffAtStart({ sessionDir: dir, sessionId: 'task-1', agent, providerSessionId: ps, value: formatHandoffSpec(SPEC), refs: () => [], now: new Date('2026-12-02T01:00:00Z') });
  assert.equal(start('codex', 'c-1'), '');
  assert.equal(fs.existsSync(join(dir, 'handoffs')), false, 'another agent claims nothing');
  const first = start('gemini', 'g-1');
  assert.equal(first, renderHandoff({ sessionId: 'task-1', spec: SPEC, recent, refs: [] }).block);
  const claim = JSON.parse(fs.readFileSync(join(dir, 'handoffs', `${SPEC.id}.json`), 'utf8'));
  assert.equal(claim.provider_session, 'g-1');
  assert.equal(claim.bytes, Buffer.byteLength(first));
  assert.equal(start('gemini', 'g-1'), '');
  assert.equal(start('gemini', 'g-2'), '');
});
