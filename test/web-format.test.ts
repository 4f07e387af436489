// The web page's display helpers (web/src/format.ts), pure functions: search snippets' STX/ETX
// marks become highlighted parts (rendered as text nodes, never HTML: issue 29.5), and a
// past instant slightly ahead of the browser's clock reads "just now", not "in 2s" (29.11).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { age, shownName, snippetParts } from '../web/src/format.ts';

test('snippet marks split into plain and matched parts; markup in the text stays text', () => {
  assert.deepEqual(snippetParts('retries with \u0002exponential\u0003 backoff <b>x</b>'), [
    { text: 'retries with ', hit: false },
    { text: 'exponential', hit: true },
    { text: ' backoff <b>x</b>', hit: false },
  ]);
  assert.deepEqual(snippetParts('\u0002a\u0003\u0002b\u0003'), [
    { text: 'a', hit: true },
    { text: 'b', hit: true },
  ]);
  assert.equal(
    snippetParts('no marks').map((p) => p.text).join(''),
    'no marks',
  );
  for (const p of snippetParts('x\u0002y\u0003z')) assert.doesNotMatch(p.text, /[\u0002\u0003]/);
});

test('a past instant a little in the future (clock skew) is "just now"; expiries still read "in ..."', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(age('2026-01-01T00:00:02Z', now), 'just now');
  assert.equal(age('2025-12-31T23:59:18Z', now), '42s ago');
  assert.equal(age('2026-01-01T00:05:00Z', now, true), 'in 5m');
  assert.equal(age('2026-01-01T00:00:02Z', now, true), 'in 2s');
});

test('names from a transcript cannot turn the page\'s text around: direction overrides show as U+FFFD', () => {
  assert.equal(shownName('invoice\u202Etxt.exe'), 'invoice\uFFFDtxt.exe');
  assert.equal(shownName('a\u2066b\u2069c\u202Ad'), 'a\uFFFDb\uFFFDc\uFFFDd');
  assert.equal(shownName('plain/path.ts'), 'plain/path.ts');
});

test('a Markdown link names the host it goes to, unless its text is that host or URL; an opener never closed stays text', async () => {
  const { renderToStaticMarkup } = await import('react-dom/server');
  const React = await import('react');
  // The tests' TypeScript settings compile JSX as React.createElement (the page's build uses its own).
  (globalThis as { React?: unknown }).React = React;
  const { createElement } = React;
  // A module path in a variable: the tests' TypeScript project does not compile the page's JSX (web/tsconfig.json does).
  const page = '../web/src/markdown.tsx';
  const { Markdown } = (await import(page)) as { Markdown: import('react').FunctionComponent<{ text: string }> };
  const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));
  assert.match(html('[https://github.com/x](https://evil.example/phish)'), /<a [^>]*href="https:\/\/evil\.example\/phish"[^>]*>https:\/\/github\.com\/x<\/a><span class="md-host"> \(evil\.example\)<\/span>/);
  assert.match(html('[cred](https://github.com@evil.example/)'), /\(evil\.example\)/);
  assert.match(html('[github](https://gіthub.com/x)'), /\(xn--/, 'a look-alike host shows as the browser reads it');
  assert.doesNotMatch(html('[evil.example](https://evil.example)'), /md-host/);
  assert.doesNotMatch(html('[https://a.example/](https://a.example/)'), /md-host/);
  // 20,000 openers and no closer: plain text, as many characters as went in.
  const open = '['.repeat(20_000);
  assert.equal(html(open), `<div class="md"><p>${open}</p></div>`);
});
