// Shared checks of the transcript readers' unit tests (test/transcripts-<agent>.test.ts):
// parse a fixture through parse.ts as capture does, project items to the fields a test
// compares, and the hostile-input checks every JSONL reader must pass (never a throw, bad
// lines counted, the good lines around them still read).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { RawItem } from '../src/core/transcript.ts';
import { newParseState, type ParsedChunk, parseJsonlChunk } from '../src/transcripts/parse.ts';
import type { JsonlReader, ParseState } from '../src/transcripts/types.ts';
import { ROOT } from './helpers.ts';

export const TRANSCRIPTS = join(ROOT, 'test', 'fixtures', 'transcripts');

export const fixture = (agent: string, name: string): Buffer => fs.readFileSync(join(TRANSCRIPTS, agent, name));

/** The fields a test compares (absent ones left out). */
export function view(raw: RawItem): Record<string, unknown> {
  const v: Record<string, unknown> = { role: raw.role, kind: raw.kind, text: raw.text };
  if (raw.tool) v.tool = raw.tool;
  if (raw.files) v.files = raw.files;
  if (raw.readPath) v.readPath = raw.readPath;
  if (raw.model) v.model = raw.model;
  if (raw.usage) v.usage = raw.usage;
  return v;
}

export function parseAll(reader: JsonlReader, bytes: Buffer, state: ParseState = newParseState()): ParsedChunk & { state: ParseState } {
  return { ...parseJsonlChunk(reader, bytes, 1, state), state };
}

/** Byte offset just after the `n`-th newline (the start of line n+1). */
export function offsetAfterLine(bytes: Buffer, n: number): number {
  let at = 0;
  for (let i = 0; i < n; i++) {
    const nl = bytes.indexOf(10, at);
    assert.ok(nl >= 0, `the fixture has fewer than ${n} lines`);
    at = nl + 1;
  }
  return at;
}

/** The first line (1-based) whose text matches. */
export function lineOf(bytes: Buffer, re: RegExp): number {
  const i = bytes.toString('utf8').split('\n').findIndex((l) => re.test(l));
  assert.ok(i >= 0, `no line matches ${re}`);
  return i + 1;
}

/** Same items, same ids, in two parses of the same bytes; ids unique within a file. */
export function assertStableIds(reader: JsonlReader, bytes: Buffer): void {
  const a = parseAll(reader, bytes).items.map((i) => i.raw);
  const b = parseAll(reader, bytes).items.map((i) => i.raw);
  assert.deepEqual(b, a);
  const ids = a.map((i) => i.item_id);
  assert.equal(new Set(ids).size, ids.length, `duplicate item ids: ${ids.join(' ')}`);
}

/**
 * A file read up to `firstRunLines` and then, from there with the carried state, to its end
 * (the resumed run's lines): the second part adds only new ids, and both parts together are
 * exactly one read of the whole.
 */
export function assertResumeAddsOnlyNew(reader: JsonlReader, bytes: Buffer, firstRunLines: number): { first: RawItem[]; added: RawItem[] } {
  const whole = parseAll(reader, bytes).items.map((i) => i.raw);
  const cut = offsetAfterLine(bytes, firstRunLines);
  const state = newParseState();
  const one = parseJsonlChunk(reader, bytes.subarray(0, cut), 1, state);
  assert.equal(one.consumed, cut);
  const two = parseJsonlChunk(reader, bytes.subarray(cut), firstRunLines + 1, state);
  const first = one.items.map((i) => i.raw);
  const added = two.items.map((i) => i.raw);
  assert.ok(added.length > 0, 'the resumed run added items');
  const seen = new Set(first.map((i) => i.item_id));
  for (const i of added) assert.ok(!seen.has(i.item_id), `the resumed run reuses id ${i.item_id}`);
  assert.deepEqual([...first, ...added], whole);
  return { first, added };
}

/** A last line the agent is still writing is left unconsumed, and read whole once it is complete. */
export function assertTruncatedLastLine(reader: JsonlReader, bytes: Buffer, line: number): void {
  const start = offsetAfterLine(bytes, line - 1);
  const end = offsetAfterLine(bytes, line);
  const partial = bytes.subarray(0, start + Math.floor((end - start) / 2));
  const state = newParseState();
  const r = parseJsonlChunk(reader, partial, 1, state);
  assert.equal(r.consumed, start, 'consumed up to the last complete line');
  assert.equal(r.lines, line - 1);
  assert.deepEqual(r.skips, []);
  const full = parseAll(reader, bytes.subarray(0, end)).items.filter((i) => i.line === line);
  assert.ok(full.length > 0, `line ${line} holds an item`);
  assert.ok(!r.items.some((i) => i.line === line), 'no partial item of the cut line');
  const rest = parseJsonlChunk(reader, bytes.subarray(start, end), line, state);
  assert.deepEqual(
    rest.items.map((i) => i.raw),
    full.map((i) => i.raw),
  );
}

/**
 * Hostile lines around one good line: not JSON, shapes the reader does not know, deep
 * nesting, invalid UTF-8, a 9 MiB line. Nothing throws, every bad line is a counted skip,
 * the good line still gives its items.
 */
export function assertHostileSkipped(reader: JsonlReader, good: string, unknownShapes: string[]): void {
  const goodItems = parseAll(reader, Buffer.from(`${good}\n`)).items.map((i) => i.raw);
  assert.ok(goodItems.length > 0, 'the good line gives items');
  const lines: Buffer[] = [
    Buffer.from('this is not JSON'),
    Buffer.from('{"truncated": '),
    ...unknownShapes.map((s) => Buffer.from(s)),
    Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    Buffer.from(`{"deep":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`),
    Buffer.concat([Buffer.from('{"type":"user","text":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]),
    Buffer.from(`{"type":"user","pad":"${'x'.repeat(9 * 1024 * 1024)}"}`),
  ];
  const bad = lines.length;
  const bytes = Buffer.concat([...lines.flatMap((l) => [l, Buffer.from('\n')]), Buffer.from(`${good}\n`)]);
  let r: ParsedChunk | undefined;
  assert.doesNotThrow(() => {
    r = parseJsonlChunk(reader, bytes, 1, newParseState());
  });
  assert.ok(r);
  assert.equal(r.unknownVersion, undefined);
  assert.equal(r.consumed, bytes.length);
  assert.deepEqual(
    r.skips.map((s) => s.line),
    Array.from({ length: bad }, (_, i) => i + 1),
    `every bad line skipped and counted: ${JSON.stringify(r.skips)}`,
  );
  for (const s of r.skips) assert.ok(s.reason.length > 0);
  const reasons = r.skips.map((s) => s.reason);
  assert.ok(reasons.includes('not JSON'));
  assert.ok(reasons.includes('nested too deep'));
  assert.ok(reasons.includes('invalid UTF-8'));
  assert.ok(reasons.includes('line too large'));
  assert.deepEqual(
    r.items.map((i) => i.raw),
    goodItems,
  );
}
