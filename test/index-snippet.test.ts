// A snippet's marks (query.ts makeSnippet) are its own: a text that carries the mark
// characters itself (a transcript can hold any character) cannot mark words no query matched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HIT_CLOSE, HIT_OPEN, makeSnippet, queryTerms } from '../src/index/query.ts';

test('a text holding the mark characters marks only the words the query matched', () => {
  const s = makeSnippet(`STX ${HIT_OPEN}fake hit${HIT_CLOSE} then the real retry`, queryTerms('retry'));
  assert.equal(s, `STX  fake hit  then the real ${HIT_OPEN}retry${HIT_CLOSE}`.replace(/\s+/g, ' '));
  assert.equal([...s].filter((c) => c === HIT_OPEN).length, 1);
});
