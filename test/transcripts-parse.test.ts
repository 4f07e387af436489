// parse.ts's depth check against its naive definition: deeper than `max` levels of `[`/`{`
// outside JSON strings (escapes honoured, an unterminated string running to the end).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_JSON_DEPTH, parseJsonLine, tooDeep } from '../src/transcripts/parse.ts';

function naive(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (++depth > max) return true;
    } else if (c === '}' || c === ']') depth--;
  }
  return false;
}

test('tooDeep answers as the character-by-character definition on generated texts', () => {
  let seed = 0x5eed;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const alphabet = ['{', '[', '}', ']', '"', '\\', 'a', ' ', ':', ','];
  for (let round = 0; round < 3000; round++) {
    const max = 1 + rnd(12);
    const len = rnd(120);
    let s = '';
    for (let i = 0; i < len; i++) s += alphabet[rnd(alphabet.length)];
    assert.equal(tooDeep(s, max), naive(s, max), `max=${max} text=${JSON.stringify(s)}`);
  }
});

test('tooDeep: brackets inside strings do not count, real nesting does, an unterminated string ends the count', () => {
  const max = MAX_JSON_DEPTH;
  const code = JSON.stringify({ text: '{['.repeat(max * 2) });
  assert.equal(tooDeep(code), false);
  const deep = `${'['.repeat(max + 1)}${']'.repeat(max + 1)}`;
  assert.equal(tooDeep(deep), true);
  assert.equal(tooDeep(`${'['.repeat(max)}${']'.repeat(max)}`), false);
  // Many brackets in strings and nesting just over the limit outside them.
  const mixed = `${'['.repeat(max)}{"k":"${'{'.repeat(500)}\\"${'['.repeat(500)}","v":[1]}${']'.repeat(max)}`;
  assert.equal(tooDeep(mixed), naive(mixed, max));
  assert.equal(tooDeep(mixed), true);
  const unterminated = `["${'['.repeat(max + 5)}`;
  assert.equal(tooDeep(unterminated), false);
  assert.equal(Object.hasOwn(parseJsonLine(deep), 'reason') && (parseJsonLine(deep) as { reason: string }).reason, 'nested too deep');
  assert.deepEqual(parseJsonLine(code), { value: JSON.parse(code) });
});
