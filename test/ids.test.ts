// Generated session ids: the slug keeps a title's letters, accents transliterated.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugOf } from '../src/core/ids.ts';
import { baton, tmpDir } from './helpers.ts';

test('slugs transliterate accented letters instead of dropping them', () => {
  assert.equal(slugOf('café'), 'cafe');
  assert.equal(slugOf('Crème brûlée à la carte'), 'creme-brulee-a-la-carte');
  assert.equal(slugOf('Straße über Øresund'), 'strasse-uber-oresund');
  assert.equal(slugOf('Łódź naïve ﬁle'), 'lodz-naive-file');
  assert.equal(slugOf('plain ASCII 42'), 'plain-ascii-42');
  assert.equal(slugOf('日本語'), 'session', 'no Latin letters: the fallback');
});

test('baton session new "Café crème" makes an id starting cafe-creme-', () => {
  const home = tmpDir();
  const r = baton(['session', 'new', 'Café crème'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout.trim(), /^cafe-creme-[0-9a-z]+$/);
});
