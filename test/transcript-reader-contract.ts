// What every JSON-lines transcript reader must do over a real fixture (transcripts.md): stable
// ids across two parses, a resumed file adds only new ids, a truncated last line is left
// unconsumed, and hostile input (not JSON, an unknown shape, deep nesting, invalid UTF-8, a
// 9 MiB line) is skipped and counted, never thrown. Shared by test/transcripts-<agent>.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newParseState, type ParsedChunk, parseJsonlChunk } from '../src/transcripts/parse.ts';
import type { JsonlReader } from '../src/transcripts/types.ts';

export const parseAll = (reader: JsonlReader, bytes: Buffer): ParsedChunk => parseJsonlChunk(reader, bytes, 1, newParseState());
export const ids = (c: ParsedChunk): string[] => c.items.map((i) => i.raw.item_id);

/** The first `n` lines of `bytes`, newline included. */
export function firstLines(bytes: Buffer, n: number): Buffer {
  let end = 0;
  for (let i = 0; i < n; i++) end = bytes.indexOf(10, end) + 1;
  return bytes.subarray(0, end);
}

/**
 * The contract tests over `bytes` (a whole session file); `firstRun` is the number of lines the
 * first run wrote (the rest a resumed run's), `unknownLine` a line of a shape the reader must refuse.
 */
export function readerContract(reader: JsonlReader, bytes: Buffer, firstRun: number, unknownLine: string): void {
  test(`${reader.agent}: the same file parsed twice gives the same items and ids; every id is unique`, () => {
    const a = parseAll(reader, bytes);
    const b = parseAll(reader, bytes);
    assert.deepEqual(a.items, b.items);
    assert.equal(new Set(ids(a)).size, a.items.length);
    assert.deepEqual(a.skips, []);
    assert.equal(a.consumed, bytes.length);
  });

  test(`${reader.agent}: the resumed run's lines, parsed on from the first run's cursor, add only new ids`, () => {
    const head = firstLines(bytes, firstRun);
    const state = newParseState();
    const first = parseJsonlChunk(reader, head, 1, state);
    assert.equal(first.consumed, head.length);
    const cursorState = JSON.parse(JSON.stringify(state));
    const rest = parseJsonlChunk(reader, bytes.subarray(first.consumed), first.lines + 1, cursorState);
    const whole = parseAll(reader, bytes);
    assert.ok(rest.items.length > 0, 'the resumed run added items');
    assert.deepEqual([...ids(first), ...ids(rest)], ids(whole));
    const before = new Set(ids(first));
    for (const id of ids(rest)) assert.ok(!before.has(id), `${id} was already there`);
  });

  test(`${reader.agent}: a truncated last line is left unconsumed, and read once complete`, () => {
    const full = parseAll(reader, bytes);
    const cut = bytes.subarray(0, bytes.length - 40);
    const state = newParseState();
    const part = parseJsonlChunk(reader, cut, 1, state);
    assert.equal(part.consumed, bytes.lastIndexOf(10, bytes.length - 2) + 1);
    assert.deepEqual(part.skips, []);
    const rest = parseJsonlChunk(reader, bytes.subarray(part.consumed), part.lines + 1, state);
    assert.deepEqual([...ids(part), ...ids(rest)], ids(full));
  });

  test(`${reader.agent}: hostile lines are skipped and counted, never thrown, and the good lines still read`, () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const huge = `{"type":"x","pad":"${'a'.repeat(9 * 1024 * 1024)}"}`;
    const bad = Buffer.concat([
      Buffer.from('not json at all\n'),
      Buffer.from(`${unknownLine}\n`),
      Buffer.from(`${deep}\n`),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d, 0x0a]),
      Buffer.from(`${huge}\n`),
      Buffer.from('[1,2,3]\n"a string"\nnull\n{}\n'),
    ]);
    const input = Buffer.concat([bad, bytes]);
    const out = parseAll(reader, input);
    const reasons = out.skips.map((s) => s.reason);
    assert.equal(reasons[0], 'not JSON');
    assert.ok(out.skips[1].line === 2 && !['not JSON', 'nested too deep', 'invalid UTF-8', 'line too large'].includes(reasons[1]), `unknown shape: ${reasons[1]}`);
    assert.equal(reasons[2], 'nested too deep');
    assert.equal(reasons[3], 'invalid UTF-8');
    assert.equal(reasons[4], 'line too large');
    assert.equal(out.skips.length, 9, JSON.stringify(out.skips));
    assert.deepEqual(ids(out), ids(parseAll(reader, bytes)));
    assert.equal(out.consumed, input.length);
  });
}
