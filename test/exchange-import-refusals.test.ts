// Every archive `session import` must refuse, each crafted byte by byte, through the real
// binary: WS403 (WS201 for a World Session log out of order), the rule named, and the store
// exactly as it was — not a folder, not a byte.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type RawEntry, SAMPLE_EVENTS, chainedLog, manifestFor, validEntries, validExport, writeZip } from './exchange-helpers.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';

const ME = { BATON_INSTANCE: 'tester' };
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function world(): { home: string; work: string } {
  const home = tmpDir();
  const work = tmpDir('baton-zips-');
  dirs.push(home, work);
  const r = baton(['session', 'new', 'Already here', '--id', 'here', '--cwd', work], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  return { home, work };
}

function refused(home: string, work: string, file: string, rule: RegExp | string, extra: string[] = [], code = 'WS403'): void {
  const before = treeHash(home);
  const r = baton(['session', 'import', file, '--json', '--cwd', work, ...extra], { home, env: ME });
  assert.equal(r.code, 2, `${file}: ${r.stdout}${r.stderr}`);
  assert.equal(r.json?.error?.code, code, r.stdout);
  assert.match(r.stderr, new RegExp(`^baton: ${code} `));
  if (typeof rule === 'string') assert.equal(r.json.error.rule, rule, r.stdout);
  else assert.match(r.json.error.message, rule);
  assert.equal(treeHash(home), before, 'the store is unchanged');
  assert.deepEqual(fs.readdirSync(join(home, 'sessions')), ['here'], 'no session folder, no hidden import folder');
}

test('the crafted export itself imports (the refusals below are for their one flaw)', () => {
  const { home, work } = world();
  const r = baton(['session', 'import', writeZip(join(work, 'ok.zip'), validExport()), '--json', '--cwd', work], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.origin_id, 'crafted-1');
  assert.equal(r.json.events, SAMPLE_EVENTS.length);
  assert.equal(fs.readFileSync(join(home, 'sessions', r.json.id, 'artifacts', 'n.md'), 'utf8'), 'hi\n');
});

test('not an export: a text file, a zip without baton-export.json, a manifest of another format', () => {
  const { home, work } = world();
  fs.writeFileSync(join(work, 'text.zip'), 'just text\n');
  refused(home, work, join(work, 'text.zip'), 'not an export');
  refused(home, work, writeZip(join(work, 'bare.zip'), validEntries()), 'not an export');
  const entries = validEntries();
  refused(home, work, writeZip(join(work, 'other.zip'), [...entries, { name: 'baton-export.json', data: manifestFor(entries, { format: 'something-else' }) }]), 'not an export');
});

test('a digest mismatch: an entry changed after the manifest was written', () => {
  const { home, work } = world();
  const entries = validEntries();
  const manifest = manifestFor(entries);
  const tampered = entries.map((e) => (e.name === 'artifacts/n.md' ? { ...e, data: Buffer.from('HI\n') } : e));
  refused(home, work, writeZip(join(work, 'tampered.zip'), [...tampered, { name: 'baton-export.json', data: manifest }]), 'digest mismatch');
});

test('a log whose chain does not hold is refused even with a manifest that matches it', () => {
  const { home, work } = world();
  const log = chainedLog(SAMPLE_EVENTS).toString().replace('a note', 'a n0te');
  const entries = [{ name: 'events.jsonl', data: Buffer.from(log) }, validEntries()[1]];
  refused(home, work, writeZip(join(work, 'chain.zip'), [...entries, { name: 'baton-export.json', data: manifestFor(entries) }]), 'corrupt log');
});

test('unsafe names: "..", an absolute path, a backslash', () => {
  const { home, work } = world();
  const plus = (e: RawEntry): RawEntry[] => [...validExport(), e];
  refused(home, work, writeZip(join(work, 'dotdot.zip'), plus({ name: 'artifacts/../../evil', data: Buffer.from('x') })), 'a ".." component');
  refused(home, work, writeZip(join(work, 'abs.zip'), plus({ name: '/tmp/evil', data: Buffer.from('x') })), 'an absolute path');
  refused(home, work, writeZip(join(work, 'bs.zip'), plus({ name: 'artifacts\\evil', data: Buffer.from('x') })), 'a backslash');
});

test('symlink and device entries', () => {
  const { home, work } = world();
  const plus = (e: RawEntry): RawEntry[] => [...validExport(), e];
  refused(home, work, writeZip(join(work, 'link.zip'), plus({ name: 'artifacts/link', data: Buffer.from('/etc/passwd'), mode: 0o120777 })), 'symlink entry');
  refused(home, work, writeZip(join(work, 'dev.zip'), plus({ name: 'artifacts/dev', data: Buffer.alloc(0), mode: 0o020644 })), 'device entry');
  refused(home, work, writeZip(join(work, 'fifo.zip'), plus({ name: 'artifacts/fifo', data: Buffer.alloc(0), mode: 0o010644 })), 'device entry');
});

test('duplicate names', () => {
  const { home, work } = world();
  const ex = validExport();
  refused(home, work, writeZip(join(work, 'dup.zip'), [...ex, { name: 'artifacts/n.md', data: Buffer.from('other\n') }]), 'duplicate name');
});

test('entries larger than declared: in the zip headers, and against the manifest', () => {
  const { home, work } = world();
  const entries = validEntries();
  const manifest = manifestFor(entries);
  // The headers say 3 bytes; the deflated stream holds 100 KiB.
  const lying: RawEntry[] = [entries[0], { name: 'artifacts/n.md', data: Buffer.alloc(100 * 1024, 0x61), method: 8, declaredSize: 3 }, { name: 'baton-export.json', data: manifest }];
  refused(home, work, writeZip(join(work, 'lying.zip'), lying), 'entry larger than declared');
  // The zip is honest, the manifest declared fewer bytes.
  const bigger = [entries[0], { name: 'artifacts/n.md', data: Buffer.from('hi there\n') }];
  refused(home, work, writeZip(join(work, 'bigger.zip'), [...bigger, { name: 'baton-export.json', data: manifest }]), 'entry larger than declared');
});

test('an entry the manifest does not list, and one it lists that is missing', () => {
  const { home, work } = world();
  refused(home, work, writeZip(join(work, 'extra.zip'), [...validExport(), { name: 'artifacts/extra.md', data: Buffer.from('x') }]), 'unlisted entry');
  const entries = validEntries();
  refused(home, work, writeZip(join(work, 'missing.zip'), [entries[0], { name: 'baton-export.json', data: manifestFor(entries) }]), 'missing entry');
});

test('a decompression bomb: entries that inflate past 10 x --max-size; an archive over --max-size', () => {
  const { home, work } = world();
  const entries = [validEntries()[0], { name: 'artifacts/zeros', data: Buffer.alloc(2 * 1024 * 1024) }];
  const bomb: RawEntry[] = [entries[0], { ...entries[1], method: 8 }, { name: 'baton-export.json', data: manifestFor(entries) }];
  const file = writeZip(join(work, 'bomb.zip'), bomb);
  assert.ok(fs.statSync(file).size < 64 * 1024, 'the archive itself is small');
  refused(home, work, file, 'decompression bomb', ['--max-size', '64KiB']);
  refused(home, work, file, 'archive too large', ['--max-size', '1KiB']);
});

test('more than 100,000 entries', () => {
  const { home, work } = world();
  const many: RawEntry[] = validExport();
  for (let i = 0; many.length <= 100_000; i++) many.push({ name: `artifacts/f${i}`, data: Buffer.alloc(0) });
  refused(home, work, writeZip(join(work, 'many.zip'), many), 'too many entries');
  // Exactly at the limit the count is not what refuses (the unlisted entries are).
  refused(home, work, writeZip(join(work, 'limit.zip'), many.slice(0, 100_000)), 'unlisted entry');
});

test('a World Session events.toml with a seq gap or events out of order is WS201, nothing written', () => {
  const { home, work } = world();
  const toml = (seqs: number[]): Buffer =>
    Buffer.from(
      seqs
        .map((s, i) => `[[event]]\nseq = ${s}\nts = "2026-05-27T14:3${i}:00+08:00"\nsurface = "cli"\nactor = "user"\ntype = "${i === 0 ? 'session.created' : 'context.appended'}"\n\n[event.payload]\ntext = "e${i}"\n`)
        .join('\n'),
    );
  const root = '.agents/world.state';
  const layout = (events: Buffer): RawEntry[] => [
    { name: `${root}/index.toml`, data: Buffer.from('[[session]]\nid = "laozi-boshu-l9k2x"\n') },
    { name: `${root}/sessions/laozi-boshu-l9k2x/manifest.toml`, data: Buffer.from('[session]\nid = "laozi-boshu-l9k2x"\ntitle = "Laozi"\n') },
    { name: `${root}/sessions/laozi-boshu-l9k2x/events.toml`, data: events },
  ];
  refused(home, work, writeZip(join(work, 'gap.zip'), layout(toml([1, 2, 4]))), /gap/, [], 'WS201');
  refused(home, work, writeZip(join(work, 'order.zip'), layout(toml([1, 3, 2]))), /out of order|gap/, [], 'WS201');
  refused(home, work, writeZip(join(work, 'back.zip'), layout(toml([1, 2, 2]))), /out of order/, [], 'WS201');
  // The same layout in order imports: the seed's own example, no manifest.
  const r = baton(['session', 'import', writeZip(join(work, 'fine.zip'), layout(toml([1, 2, 3]))), '--json', '--cwd', work], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.origin_id, 'laozi-boshu-l9k2x');
  assert.equal(r.json.layout, 'world-session-v1');
});

test('an export folder (export --to) is checked like a zip: a symlink or a FIFO in it is refused', () => {
  const { home, work } = world();
  const folder = (name: string): string => {
    const dir = join(work, name);
    for (const e of validExport()) {
      fs.mkdirSync(join(dir, e.name, '..'), { recursive: true });
      fs.writeFileSync(join(dir, e.name), e.data);
    }
    return dir;
  };
  const linked = folder('linked');
  fs.symlinkSync('/etc/passwd', join(linked, 'artifacts', 'passwd'));
  refused(home, work, linked, 'symlink entry');
  const fifo = folder('fifo');
  spawnSync('mkfifo', [join(fifo, 'artifacts', 'pipe')]);
  refused(home, work, fifo, 'device entry');
  const r = baton(['session', 'import', folder('fine'), '--json', '--cwd', work], { home, env: ME });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.json.origin_id, 'crafted-1');
});

test('a transcript.item of another shape or past its bounds is refused though its chain holds (an edited, re-chained export)', () => {
  const { home, work } = world();
  const good = { agent: 'claude', agent_session: 's-1', item_id: 'i-1', at: '2026-05-27T07:00:00.000Z', role: 'assistant', kind: 'message', text: 'done' };
  const withItem = (payload: Record<string, unknown>, name: string): string => {
    const events = [...SAMPLE_EVENTS, { type: 'transcript.item', surface: 'hook:claude', actor: 'agent', payload } as (typeof SAMPLE_EVENTS)[number]];
    const entries = [{ name: 'events.jsonl', data: chainedLog(events) }, validEntries()[1]];
    return writeZip(join(work, `${name}.zip`), [...entries, { name: 'baton-export.json', data: manifestFor(entries, { events: events.length, last_seq: events.length }) }]);
  };
  const ok = baton(['session', 'import', withItem(good, 'good'), '--json', '--cwd', work], { home, env: ME });
  assert.equal(ok.code, 0, ok.stderr);
  fs.rmSync(join(home, 'sessions', ok.json.id), { recursive: true });
  for (const [name, payload, why] of [
    ['object-text', { ...good, text: { not: 'a string' } }, /text is not a string/],
    ['null-role', { ...good, role: null }, /role or kind/],
    ['no-at', { ...good, at: undefined }, /at is not an ISO time/],
    ['files-string', { ...good, files: 'a.ts' }, /files must be/],
    ['huge-text', { ...good, text: 'x'.repeat(750_000) }, /text is over 32768 bytes/],
    ['huge-input', { ...good, kind: 'tool_call', tool: { name: 'Bash', call_id: 'c', input: { command: 'y'.repeat(5000) } } }, /input is over 4096 bytes/],
    ['extra-field', { ...good, injected: true }, /unknown field "injected"/],
  ] as [string, Record<string, unknown>, RegExp][]) {
    refused(home, work, withItem(JSON.parse(JSON.stringify(payload)), name), why);
    assert.equal(baton(['session', 'import', join(work, `${name}.zip`), '--json', '--cwd', work], { home, env: ME }).json.error.rule, 'transcript item');
  }
});
