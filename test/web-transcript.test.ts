// The web page's transcript (docs/web.md, Transcript) in Debian's Chromium, headless, against
// the real `baton serve`: a real Claude Code transcript (test/fixtures/transcripts/claude)
// captured by the real hook at turn end shows its prompt, its answer and a folded Write of
// plan.md; agent text carrying HTML and a javascript: link renders as text (no script runs,
// no such link); a later turn appears live; a search hit opens the session at its item;
// the list filters by id and agent; "Continue in" shows thread/continue's command or its
// refusal and changes nothing on disk; axe finds nothing serious.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from './chromium.ts';
import { ROOT, baton, tmpDir, treeHash } from './helpers.ts';
import { type RunningServer, startServer } from './server-helpers.ts';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'transcripts', 'claude', 'claude-2.1.328-session.jsonl');
const SESSION = 'f83ca806-e50c-40a0-8f40-dbce88cf6256';
/** A second session: the same transcript with an assistant answer that tries HTML and a javascript: link. */
const EVIL = '0b1c2d3e-4f50-4617-8899-aabbccddeeff';
const EVIL_TEXT = 'Look: <img src=x onerror="window.__pwned=1"> and [click me](javascript:window.__pwned=2) and [the docs](https://example.com/docs), **bold** and `code`.';
const skip = chromiumMissing();

let root: string;
let home: string;
let store: string;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
let evilPath: string;
/** A CLI-made session in a folder that exists, continued in a stand-in `codex` on PATH (thread/continue runs nothing). */
let made: string;
let path: string;

const env = () => ({ HOME: home, BATON_HOME: store, BATON_SESSION: undefined });
const stop = (id: string, transcript: string) => {
  const r = baton(['hook', 'claude'], { env: env(), input: JSON.stringify({ session_id: id, transcript_path: transcript, cwd: '/home/u/proj', hook_event_name: 'Stop' }) });
  assert.equal(r.code, 0, r.stderr);
};
const lines = () => fs.readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');

async function axe(p: Page, what: string): Promise<void> {
  // Evaluated over the DevTools protocol, which the page's Content-Security-Policy does not govern (a script tag would be refused).
  await p.evaluate(fs.readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  const found = (await p.evaluate(async () => {
    const r = await (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe.run({ resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  })) as { id: string; impact: string; nodes: number }[];
  const bad = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `axe on ${what}: ${JSON.stringify(bad)}`);
}

before(async () => {
  if (skip) return;
  root = tmpDir('baton-web-transcript-');
  home = join(root, 'home');
  store = join(root, 'store');
  const dir = join(home, '.claude', 'projects', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  const plain = join(dir, `${SESSION}.jsonl`);
  fs.copyFileSync(FIXTURE, plain);
  stop(SESSION, plain);
  evilPath = join(dir, `${EVIL}.jsonl`);
  const evil = lines().map((l) => {
    const j = JSON.parse(l.replaceAll(SESSION, EVIL));
    const c = j.message?.content;
    if (j.type === 'assistant' && Array.isArray(c) && c[0]?.text === 'I will write notes.txt first.') c[0].text = EVIL_TEXT;
    return JSON.stringify(j);
  });
  assert.ok(evil.some((l) => l.includes('__pwned')), 'the fixture still has the answer the test rewrites');
  fs.writeFileSync(evilPath, `${evil.join('\n')}\n`);
  stop(EVIL, evilPath);
  const bin = join(root, 'bin');
  const proj = join(root, 'proj');
  fs.mkdirSync(bin);
  fs.mkdirSync(proj);
  fs.writeFileSync(join(bin, 'codex'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  path = `${bin}:${process.env.PATH}`;
  const m = baton(['session', 'new', 'Hand me to codex', '--json'], { env: env(), cwd: proj });
  assert.equal(m.code, 0, m.stderr);
  made = m.json.id;
  assert.equal(baton(['session', 'release', made], { env: env() }).code, 0);
  server = await startServer(store, [], { HOME: home, PATH: path });
  browser = await launchChromium(root);
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(`${server.url}?token=${server.token}`);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('the transcript shows the prompt, the answer with its model, and a folded Write call naming plan.md', { skip }, async () => {
  await page.goto(`${server.url}?s=${SESSION}`);
  const t = page.locator('section.transcript');
  await t.getByText('Write hello into notes.txt, then a plan in plan.md.').waitFor();
  await t.getByText('Both files are written: notes.txt and plan.md.').waitFor();
  const answer = t.locator('article.ti-assistant', { hasText: 'Both files are written' });
  assert.match((await answer.locator('.ti-who').textContent()) ?? '', /^Assistant · claude-/);
  const write = t.locator('details.ti-tool', { has: page.locator('summary', { hasText: '→ Write' }) });
  assert.equal(await write.count(), 1);
  assert.match((await write.locator('summary').textContent()) ?? '', /→ Write plan\.md/);
  assert.equal(await write.getAttribute('open'), null, 'folded');
  assert.equal(await write.locator('.ti-input').isVisible(), false);
  await write.locator('summary').click();
  const input = JSON.parse((await write.locator('.ti-input').textContent()) ?? '');
  assert.match(String(input.file_path), /plan\.md$/);
  // Its result is inside the call, not a row of its own.
  assert.equal(await write.locator('.ti-res').count(), 1);
  assert.equal(await t.locator('details.ti-tool', { has: page.locator('summary', { hasText: 'Write result' }) }).count(), 0);
  // The fake token the model printed was redacted before it reached the log, so the page never has it.
  assert.doesNotMatch((await t.textContent()) ?? '', /ghp_A1b2/);
  await page.screenshot({ path: '/tmp/web-transcript.png', fullPage: true });
  await page.setViewportSize({ width: 960, height: 760 });
  await t.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/web-transcript-960.png' });
  await page.setViewportSize({ width: 1200, height: 900 });
  await axe(page, 'a transcript with an open tool call');
});

test('agent text with HTML and a javascript: link renders as text; no script runs, no such link', { skip }, async () => {
  await page.goto(`${server.url}?s=${EVIL}`);
  const t = page.locator('section.transcript');
  const item = t.locator('article.ti-assistant', { hasText: 'Look:' });
  await item.waitFor();
  const text = (await item.locator('.md').textContent()) ?? '';
  assert.match(text, /<img src=x onerror="window\.__pwned=1">/, 'the tag is shown as its characters');
  assert.match(text, /\[click me\]\(javascript:window\.__pwned=2\)/, 'the javascript: link is shown as text');
  assert.equal(await page.locator('section.transcript img').count(), 0);
  assert.equal(await page.locator('a[href^="javascript" i]').count(), 0);
  assert.equal(await item.getByRole('link', { name: 'click me' }).count(), 0);
  assert.equal(await item.getByRole('link', { name: 'the docs' }).getAttribute('href'), 'https://example.com/docs');
  assert.equal(await item.locator('strong').textContent(), 'bold');
  assert.equal(await item.locator('code').textContent(), 'code');
  // Clicking where the link would have been runs nothing either.
  await item.getByText(/click me/).click();
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
});

test('a turn the hook captures later appears live, without a reload', { skip }, async () => {
  await page.goto(`${server.url}?s=${EVIL}`);
  const t = page.locator('section.transcript');
  await t.getByText('Both files are written').waitFor();
  await page.evaluate(() => {
    (window as unknown as { __same?: boolean }).__same = true;
  });
  const src = lines().map((l) => JSON.parse(l.replaceAll(SESSION, EVIL)));
  const user = src.find((j) => j.type === 'user' && j.message?.content === 'Print the token.');
  const answer = src.find((j) => j.type === 'assistant' && Array.isArray(j.message?.content) && String(j.message.content[0]?.text).startsWith('The token'));
  const at = new Date().toISOString();
  const u = { ...user, uuid: '11111111-2222-4333-8444-555555555555', timestamp: at, message: { role: 'user', content: 'Now add a **live** test.' } };
  const a = { ...answer, uuid: '66666666-7777-4888-9999-000000000000', parentUuid: u.uuid, timestamp: at, message: { ...answer.message, id: 'msg_live_1', content: [{ type: 'text', text: 'The live test is added.' }] } };
  fs.appendFileSync(evilPath, `${JSON.stringify(u)}\n${JSON.stringify(a)}\n`);
  stop(EVIL, evilPath);
  await t.getByText('The live test is added.').waitFor();
  const turn = t.locator('li.turn', { hasText: 'The live test is added.' });
  assert.equal(await turn.locator('article.ti-user').count(), 1, 'the user message started its own turn');
  assert.equal(await turn.locator('article.ti-user strong').textContent(), 'live');
  assert.equal(await page.evaluate(() => (window as unknown as { __same?: boolean }).__same), true, 'no reload');
});

test('a search hit on an item opens the session at that item, highlighted', { skip }, async () => {
  await page.goto(`${server.url}?q=${encodeURIComponent('Both files written')}&sid=${SESSION.slice(0, 8)}`);
  await page.getByText('1 hit for').waitFor();
  const hit = page.locator('ol.rows a.open').first();
  const href = (await hit.getAttribute('href')) ?? '';
  const seq = Number(new URLSearchParams(href).get('at'));
  assert.ok(seq > 0, href);
  assert.equal(await page.locator('ol.rows a.open').count(), 1, 'the id filter keeps the hit of one session');
  await hit.click();
  const item = page.locator(`#item-${seq}`);
  await item.waitFor();
  await page.waitForFunction((s) => document.activeElement?.id === `item-${s}`, seq);
  assert.match((await item.getAttribute('class')) ?? '', /\bhl\b/);
  assert.match((await item.textContent()) ?? '', /Both files are written/);
  assert.equal(await page.locator('.transcript .hl').count(), 1);
  assert.ok(await item.isVisible());
  const box = await item.boundingBox();
  const view = page.viewportSize();
  assert.ok(box && view && box.y >= 0 && box.y < view.height, 'scrolled into view');
});

test('the list filters by session id and by agent', { skip }, async () => {
  await page.goto(`${server.url}?sid=${EVIL.slice(0, 13)}`);
  await page.getByText(/1 of the \d+ sessions loaded match/).waitFor();
  assert.deepEqual(await page.locator('ol.rows a.open').evaluateAll((as) => as.map((a) => a.getAttribute('href'))), [`?s=${EVIL}`]);
  await page.goto(`${server.url}?agent=codex`);
  await page.getByText(/^0 of the 3 sessions loaded match/).waitFor();
  await page.getByLabel('Agent').selectOption('');
  await page.getByLabel('Session id').fill(SESSION.slice(-6));
  await page.getByText(/^1 of the 3 sessions loaded match/).waitFor();
  assert.equal(new URL(page.url()).searchParams.get('sid'), SESSION.slice(-6));
  await axe(page, 'the filtered list');
});

test('"Continue in" shows the command to copy, or the refusal, and changes nothing', { skip }, async () => {
  await page.goto(`${server.url}?s=${SESSION}`);
  await page.getByText('Both files are written').first().waitFor();
  const volatile = (n: string) => n.startsWith('baton.db') || n.startsWith('server.') || n.endsWith('.lock');
  const beforeHash = treeHash(join(store, 'sessions'), volatile);
  // The captured session's workspace (/home/u/proj) does not exist here: thread/continue refuses, as the CLI does.
  const cli = baton(['continue', SESSION, '--in', 'codex', '--print', '--json'], { env: env() });
  assert.equal(cli.code, 2);
  assert.equal(cli.json.error.code, 'CN002');
  await page.getByLabel('Continue in').selectOption('codex');
  await page.getByRole('button', { name: 'Show the command' }).click();
  const r = page.getByTestId('continue-refusal');
  await r.waitFor();
  assert.equal((await r.textContent())?.trim(), `CN002 ${cli.json.error.message}`);
  assert.equal(await page.getByTestId('continue-command').count(), 0);
  assert.equal(treeHash(join(store, 'sessions'), volatile), beforeHash);

  // Where the workspace exists and the agent is on PATH: the command to copy and the handoff block.
  const plan = baton(['continue', made, '--in', 'codex', '--print', '--json'], { env: { ...env(), PATH: path } });
  assert.equal(plan.code, 0, plan.stderr);
  await page.goto(`${server.url}?s=${made}`);
  await page.getByLabel('Continue in').selectOption('codex');
  await page.getByRole('button', { name: 'Show the command' }).click();
  const cmd = page.getByTestId('continue-command');
  await cmd.waitFor();
  // Each plan has its own handoff id: the rest is the CLI's command exactly.
  const sameBut = (t: string) => t.trim().replace(/\bid=[0-9a-f]{16}\b/g, 'id=…');
  assert.equal(sameBut((await cmd.textContent()) ?? ''), sameBut(plan.json.command));
  assert.match(plan.json.command, /codex/);
  const block = page.locator('details.handoff');
  assert.equal(await block.getAttribute('open'), null);
  await block.locator('summary').click();
  assert.equal(sameBut((await block.locator('pre').textContent()) ?? ''), sameBut(String(plan.json.block)));
  assert.equal(treeHash(join(store, 'sessions'), volatile), beforeHash);
  await axe(page, 'Continue in');
});

test('no console errors', { skip }, () => {
  assert.deepEqual(consoleErrors, []);
});

test('an idle transcript parses no Markdown again as the page clock ticks (memoized), and a link names its host', { skip }, async () => {
  const p = await browser.newPage();
  try {
    await p.clock.install();
    // Counts the inline Markdown parses (markdown.tsx's expression starts with its code-span branch).
    await p.addInitScript(() => {
      const w = window as unknown as { __parses: number };
      w.__parses = 0;
      const orig = String.prototype.matchAll;
      String.prototype.matchAll = function (this: string, re: RegExp) {
        if (re instanceof RegExp && re.source.startsWith('(`+)')) w.__parses++;
        return orig.call(this, re);
      } as typeof orig;
    });
    await p.goto(`${server.url}?token=${server.token}`);
    await p.goto(`${server.url}?s=${SESSION}`);
    await p.locator('section.transcript').getByText('Both files are written: notes.txt and plan.md.').waitFor();
    const parses = (): Promise<number> => p.evaluate(() => (window as unknown as { __parses: number }).__parses);
    const before = await parses();
    assert.ok(before > 0, 'the items were parsed once');
    await p.clock.runFor(16_000); // three ticks of the page's 5 s clock
    await p.locator('section.transcript').getByText('Both files are written: notes.txt and plan.md.').waitFor();
    assert.equal(await parses(), before, 'no item parsed again while idle');
  } finally {
    await p.close();
  }
});
