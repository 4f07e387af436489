// The web page's token is never a cookie (issue 28.2, docs/adr/0050-web-token-not-a-cookie.md):
// cookies are scoped by host, not port, so a cookie on 127.0.0.1 would reach every local web
// app. In Debian's Chromium against the real `baton serve`: the page opened with ?token=
// drops it from the address bar, keeps it in this tab's sessionStorage, works (the list, an
// artifact's download), sets no cookie and clears the one an earlier version set; a second
// plain HTTP server on another local port, opened in the same browser, receives no
// baton_token. Without the token the page's own files load, and nothing of the store does.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { type Server, createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from './chromium.ts';
import { baton, tmpDir, treeHash } from './helpers.ts';
import { type RunningServer, startServer } from './server-helpers.ts';
import { WEB_CSP } from '../src/server/transports.ts';

const skip = chromiumMissing();

let root: string;
let home: string;
let proj: string;
let server: RunningServer;
let other: Server;
let otherPort = 0;
const otherCookies: string[] = [];
let browser: BrowserContext;
let page: Page;
let id: string;

before(async () => {
  if (skip) return;
  root = tmpDir('baton-webtok-');
  home = join(root, 'home');
  proj = join(root, 'proj');
  fs.mkdirSync(proj);
  const run = (args: string[]) => {
    const r = baton([...args, '--json'], { home, cwd: proj });
    assert.equal(r.code, 0, r.stderr);
    return r.json;
  };
  id = run(['session', 'new', 'Token kept in the tab']).id;
  fs.writeFileSync(join(proj, 'notes.txt'), 'artifact body\n');
  run(['session', 'artifact', 'add', id, join(proj, 'notes.txt')]);
  run(['session', 'release', id]);
  server = await startServer(home);
  // Another local web app: it records the Cookie header of every request it gets.
  other = createServer((req, res) => {
    otherCookies.push(String(req.headers.cookie ?? ''));
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>other app</title><p>other app</p>');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
  const addr = other.address();
  otherPort = typeof addr === 'object' && addr ? addr.port : 0;
  browser = await launchChromium(root);
  page = browser.pages()[0] ?? (await browser.newPage());
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((r) => (other ? other.close(() => r(null)) : r(null)));
});

test('the page keeps the token in the tab, no cookie: another local port receives no baton_token', { skip }, async () => {
  // The cookie an earlier version set, still in the browser: the page clears it.
  await browser.addCookies([{ name: 'baton_token', value: server.token, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict' }]);
  const before = treeHash(join(home, 'sessions'), (n) => n === '.verified' || n.startsWith('.mutex'));
  await page.goto(`${server.url}?token=${server.token}`);
  await page.getByRole('link', { name: /Token kept in the tab/ }).waitFor();
  await page.getByText('live', { exact: true }).waitFor();
  assert.equal(new URL(page.url()).search, '', 'the token leaves the address bar');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('baton.token')), server.token, "the tab's sessionStorage holds it");
  assert.deepEqual(
    (await browser.cookies()).filter((c) => c.name === 'baton_token'),
    [],
    'no baton cookie in the browser',
  );
  // An artifact downloads with the token as a header.
  await page.getByRole('link', { name: /Token kept in the tab/ }).click();
  const dl = page.waitForEvent('download');
  await page.getByRole('link', { name: 'notes.txt' }).click();
  const file = await (await dl).path();
  assert.equal(fs.readFileSync(file, 'utf8'), 'artifact body\n');
  // A reload keeps working from sessionStorage (the address has no token any more).
  await page.reload();
  await page.getByText('live', { exact: true }).waitFor();
  // The other local app, in the same browser: no baton cookie reaches it.
  await page.goto(`http://127.0.0.1:${otherPort}/`);
  await page.getByText('other app').waitFor();
  assert.ok(otherCookies.length > 0);
  for (const c of otherCookies) assert.doesNotMatch(c, /baton_token/, `the other app got: ${c}`);
  assert.equal(treeHash(join(home, 'sessions'), (n) => n === '.verified' || n.startsWith('.mutex')), before);
});

test('without the token the page loads and says so, and the store answers nothing (401)', { skip }, async () => {
  const fresh = await browser.newPage();
  try {
    await fresh.goto(server.url);
    await fresh.getByTestId('no-token').waitFor();
    const status = await fresh.evaluate(async (sid) => (await fetch(`/artifacts/${sid}/`)).status, id);
    assert.equal(status, 401);
    const health = await fresh.evaluate(async () => (await fetch('/healthz')).status);
    assert.equal(health, 401);
  } finally {
    await fresh.close();
  }
});

test('the page is served with a Content-Security-Policy (its own scripts and server only), nosniff, and no framing: another local app cannot frame it', { skip }, async () => {
  const res = await fetch(`${server.url}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-security-policy'), WEB_CSP);
  assert.match(WEB_CSP, /script-src 'self'/);
  assert.match(WEB_CSP, /frame-ancestors 'none'/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  await res.arrayBuffer();
  // Framed by the other local app: the browser refuses to show it.
  const framer = await browser.newPage();
  try {
    await framer.goto(`http://127.0.0.1:${otherPort}/`);
    const loaded = await framer.evaluate(
      (src) =>
        new Promise<string>((r) => {
          const f = document.createElement('iframe');
          f.src = src;
          f.onload = () => {
            try {
              r(f.contentDocument?.title ?? 'cross-origin');
            } catch {
              r('cross-origin');
            }
          };
          document.body.append(f);
          setTimeout(() => r('timeout'), 5000);
        }),
      server.url,
    );
    // A refused frame loads as an empty error document, never the page (whose title is "baton").
    assert.notEqual(loaded, 'baton');
    const frames = framer.frames().filter((f) => f.url().startsWith(server.url));
    for (const f of frames) assert.equal(await f.evaluate(() => document.querySelector('#root') !== null).catch(() => false), false, 'the page did not render in the frame');
  } finally {
    await framer.close();
  }
});
