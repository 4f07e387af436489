// The web page (docs/web.md) in Debian's Chromium, headless, driven by playwright-core (no
// browser download), against the real `baton serve` in a temporary BATON_HOME: the list
// shows sessions the CLI made, search finds a word, a CLI append appears live, resume +
// append from the page is in `baton session log`, a held lease is shown and not stolen, a
// refusal shows its code (and changes nothing on disk), no console errors, no request
// leaves the server, axe-core finds nothing serious, a lost connection shows a banner and
// the page catches up after it. Screenshots go to .artifacts/web/ (gitignored).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from './chromium.ts';
import { ROOT, baton, tmpDir, treeHash } from './helpers.ts';
import { type RunningServer, startServer } from './server-helpers.ts';

const SHOTS = join(ROOT, '.artifacts', 'web');
const skip = chromiumMissing();

let root: string;
let home: string;
let proj: string;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const foreign: string[] = [];
let a: string;
let b: string;
/** A session made by Claude Code's hooks: one episode with its frozen start context, a prompt, a ref and a pointer. */
let c: string;

const cli = (args: string[]) => {
  const r = baton([...args, '--json'], { home, cwd: proj });
  assert.equal(r.code, 0, `baton ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.json;
};

/** The axe-core scan: no serious or critical violation. */
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
  root = tmpDir('baton-web-');
  home = join(root, 'home');
  proj = join(root, 'proj');
  fs.mkdirSync(proj);
  a = cli(['session', 'new', 'Fix the flaky parser']).id;
  cli(['session', 'append', a, '--text', 'the tokenizer drops every quokka between quotes']);
  fs.writeFileSync(join(proj, 'notes.txt'), 'artifact body\n');
  cli(['session', 'artifact', 'add', a, join(proj, 'notes.txt')]);
  cli(['session', 'release', a]);
  b = cli(['session', 'new', 'Held by the CLI']).id;
  c = randomUUID();
  const hook = (payload: Record<string, unknown>) => assert.equal(baton(['hook', 'claude'], { home, input: JSON.stringify({ cwd: proj, transcript_path: join(root, 't.jsonl'), session_id: c, ...payload }) }).code, 0);
  hook({ hook_event_name: 'SessionStart', source: 'startup' });
  hook({ hook_event_name: 'UserPromptSubmit', prompt: 'make the parser accept curly quotes' });
  const current = cli(['pointer', 'show', c]);
  const receipt = baton(['pointer', 'publish'], {
    home,
    input: JSON.stringify({ schema_version: 3, session_id: c, expected_generation: current.generation, expected_revision: current.revision, task_id: randomUUID(), target_status: 'DIRTY', pointer_text: 'Goal: curly quotes\nNext: add a test for the tokenizer' }),
  });
  assert.equal(receipt.code, 0, receipt.stdout);
  cli(['ref', 'capture', '--from', a, '--into', c]);
  server = await startServer(home);
  browser = await launchChromium(root);
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(`http://127.0.0.1:${server.port}/`) && !u.startsWith(`ws://127.0.0.1:${server.port}/`) && !u.startsWith('data:')) foreign.push(u);
  });
  fs.mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the list shows the sessions the CLI made, with the token kept in the tab (no cookie)', { skip }, async () => {
  await page.goto(`${server.url}?token=${server.token}`);
  assert.equal(new URL(page.url()).search, '', 'the token leaves the URL');
  assert.equal((await browser.cookies()).find((x) => x.name === 'baton_token'), undefined, 'no cookie (test/web-token.test.ts)');
  await page.getByRole('link', { name: /Fix the flaky parser/ }).waitFor();
  await page.getByRole('link', { name: /Held by the CLI/ }).waitFor();
  await page.getByText('live', { exact: true }).waitFor();
  await page.screenshot({ path: join(SHOTS, 'list.png') });
  await axe(page, 'the list');
});

test('search finds a word, its filter lives in the URL, and back returns to the list', { skip }, async () => {
  await page.keyboard.press('/');
  await page.keyboard.type('quokka');
  await page.keyboard.press('Enter');
  await page.getByText(/1 hit for “quokka”/).waitFor();
  // The index's STX/ETX marks are highlights, not boxes (issue 29.5).
  assert.equal(await page.locator('.snippet mark').first().textContent(), 'quokka');
  assert.doesNotMatch((await page.locator('.snippet').first().textContent()) ?? '', /[\u0002\u0003]/);
  assert.match((await page.locator('.snippet').first().textContent()) ?? '', /quokka/);
  assert.equal(new URL(page.url()).searchParams.get('q'), 'quokka');
  await page.goBack();
  await page.getByRole('link', { name: /Held by the CLI/ }).waitFor();
  assert.equal(new URL(page.url()).searchParams.get('q'), null);
});

test('a lease held by the CLI is shown with its holder and not stolen', { skip }, async () => {
  await page.getByRole('link', { name: /Held by the CLI/ }).click();
  await page.getByTestId('lease').getByText(/Held by cli/).waitFor();
  assert.equal(await page.getByRole('button', { name: /Resume|Steal/ }).count(), 0, 'no resume or steal while the lease is valid');
  const note = page.getByTestId('held-note');
  await note.waitFor();
  await page.screenshot({ path: join(SHOTS, 'held.png'), fullPage: true });
  assert.match((await note.textContent()) ?? '', /^Held by cli \(cli@.*\): Resume is offered once the lease expires; Release, Archive and Append wait/);
  // Actions another surface's lease would refuse are not offered (issue 29.11).
  for (const name of ['Release', 'Archive', 'Append']) assert.equal(await page.getByRole('button', { name, exact: true }).isDisabled(), true, name);
  assert.equal(await page.getByLabel('Append context').isDisabled(), true);
  const show = cli(['session', 'show', b]);
  assert.equal(show.lease.holder.surface, 'cli');
  await axe(page, 'a held session');
});

test('an expired lease is shown as expired and only then offers steal; stealing takes it as web', { skip }, async () => {
  const d = cli(['session', 'new', 'Left behind by a crashed agent', '--lease', '1s']).id;
  // Wait for the store to call the lease expired (no timing assertion: the test timeout bounds it).
  while (cli(['session', 'show', d]).lease?.valid !== false) await new Promise((r) => setTimeout(r, 200));
  await page.goto(`${server.url}?s=${d}`);
  await page.getByTestId('lease').getByText(/Held by cli .* expired$/).waitFor();
  await page.getByRole('button', { name: 'Steal expired lease and resume' }).click();
  await page.getByText('Resume: done').waitFor();
  await page.getByTestId('lease').getByText(/Held by web/).waitFor();
  assert.equal(cli(['session', 'show', d]).lease.holder.surface, 'web');
});

test('a corrupt log is shown as a banner, not hidden', { skip }, async () => {
  const e = cli(['session', 'new', 'Corrupted on disk']).id;
  cli(['session', 'release', e]);
  fs.appendFileSync(join(home, 'sessions', e, 'events.jsonl'), '{"seq":99,"not":"an event"}\n');
  await page.goto(`${server.url}?s=${e}`);
  await page.getByRole('alert').filter({ hasText: /Corrupt log/ }).waitFor();
});

test('a team conflict file is shown as a banner with its file, machine, epoch and event count', { skip }, async () => {
  const f = cli(['session', 'new', 'Forked while offline']).id;
  cli(['session', 'append', f, '--text', 'kept aside on the laptop']);
  cli(['session', 'release', f]);
  // What a former owner's sync leaves (docs/team.md): its events after losing ownership, exact lines.
  const dir = join(home, 'sessions', f);
  const lines = fs.readFileSync(join(dir, 'events.jsonl'), 'utf8').trimEnd().split('\n');
  fs.mkdirSync(join(dir, 'conflicts'), { mode: 0o700 });
  fs.writeFileSync(join(dir, 'conflicts', '3-laptop.jsonl'), `${lines.slice(-2).join('\n')}\n`, { mode: 0o600 });
  await page.goto(`${server.url}?s=${f}`);
  const banner = page.getByTestId('team-conflicts');
  await banner.getByText('conflicts/3-laptop.jsonl').waitFor();
  assert.match((await banner.textContent()) ?? '', /Team conflict.*conflicts\/3-laptop\.jsonl: 2 event\(s\) from laptop at epoch 3.*baton team resolve /s);
  assert.equal(await banner.getAttribute('role'), 'alert');
  await page.screenshot({ path: join(SHOTS, 'team-conflict.png') });
  await axe(page, 'a session with a team conflict');
});

test('a CLI append appears live; resume + append from the page is in the session log', { skip }, async () => {
  await page.goto(`${server.url}?s=${a}`);
  await page.getByRole('heading', { name: 'Fix the flaky parser' }).waitFor();
  await page.getByText('quokka between quotes').waitFor();
  cli(['session', 'resume', a]);
  cli(['session', 'append', a, '--text', 'appended by the CLI while the page watches']);
  cli(['session', 'release', a]);
  await page.getByText('appended by the CLI while the page watches').waitFor();

  await page.getByRole('button', { name: 'Resume here' }).click();
  await page.getByText('Resume: done').waitFor();
  await page.getByTestId('lease').getByText(/Held by web/).waitFor();
  await page.getByLabel('Append context').fill('typed into the web page');
  await page.getByRole('button', { name: 'Append', exact: true }).click();
  await page.getByText('Append: done').waitFor();
  await page.locator('.ev-text', { hasText: 'typed into the web page' }).waitFor();
  const log = JSON.parse(baton(['session', 'log', a, '--json'], { home }).stdout).events as { type: string; surface: string; payload: { text?: string } }[];
  const mine = log.find((e) => e.type === 'context.appended' && e.payload.text === 'typed into the web page');
  assert.equal(mine?.surface, 'web');
  assert.ok(log.some((e) => e.type === 'session.resumed' && e.surface === 'web'));

  // The artifact downloads through the page's link, byte for byte (fetched with the token as a header: a bare GET of its href is 401).
  const dl = page.waitForEvent('download');
  await page.getByRole('link', { name: 'notes.txt' }).click();
  assert.equal(fs.readFileSync((await (await dl).path()) as string, 'utf8'), 'artifact body\n');
  await page.screenshot({ path: join(SHOTS, 'session.png'), fullPage: true });
  await axe(page, 'a session');
});

test('a hook-made session: episode with its frozen start context one click away, pointer panel, ref badge', { skip }, async () => {
  await page.goto(`${server.url}?s=${c}`);
  await page.getByRole('heading', { name: 'Episodes' }).waitFor();
  await page.getByText('NEXT_ACTION').waitFor();
  assert.match((await page.locator('.ptext').textContent()) ?? '', /Next: add a test for the tokenizer/);
  assert.equal(await page.locator('.badge.ptr-dirty').first().textContent(), 'DIRTY');
  // The ref of A was captured before the page appended to A: it is stale now, and says so, with its digest.
  const refs = cli(['ref', 'list', c]).refs;
  assert.equal(refs[0].state, 'stale');
  assert.equal(await page.locator('.badge.ref-stale').count(), 1);
  await page.getByText(refs[0].digest.slice(0, 12), { exact: true }).waitFor();
  await page.getByRole('button', { name: /prompt.submitted/ }).getByText('make the parser accept curly quotes').waitFor();
  await page.getByRole('button', { name: 'start context' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const text = (await dialog.locator('pre').textContent()) ?? '';
  const file = fs.readdirSync(join(home, 'sessions', c, 'contexts'))[0];
  assert.equal(text.trimEnd(), fs.readFileSync(join(home, 'sessions', c, 'contexts', file), 'utf8').trimEnd(), 'the frozen start context, as written when the episode opened');
  await page.screenshot({ path: join(SHOTS, 'start-context.png') });
  await page.keyboard.press('Escape');
  await page.screenshot({ path: join(SHOTS, 'session-hooks.png'), fullPage: true });
  await axe(page, 'a hook-made session');
});

test('a refused action shows its code and changes nothing on disk', { skip }, async () => {
  await page.goto(`${server.url}?s=${a}`);
  await page.getByTestId('lease').getByText(/Held by web/).waitFor();
  const volatile = (n: string) => n.startsWith('baton.db') || n.startsWith('server.') || n.endsWith('.lock');
  const beforeHash = treeHash(join(home, 'sessions'), volatile);
  await page.getByLabel('Capture a ref of this session into').fill('no-such-session');
  await page.getByRole('button', { name: 'Capture' }).click();
  const refusal = page.getByTestId('refusal');
  await refusal.waitFor();
  assert.match((await refusal.textContent()) ?? '', /^WS001 /);
  assert.equal(treeHash(join(home, 'sessions'), volatile), beforeHash);
  await page.getByRole('button', { name: 'Release', exact: true }).click();
  await page.getByText('Release: done').waitFor();
});

test('keyboard: j/k and arrows move in the list, Enter opens; 360 px wide works', { skip }, async () => {
  await page.goto(server.url);
  await page.getByRole('link', { name: /Held by the CLI/ }).waitFor();
  const second = (await page.locator('a.open').nth(1).getAttribute('href')) ?? '';
  for (const key of ['ArrowDown', 'j', 'k', 'ArrowDown']) await page.keyboard.press(key);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('href')), second, 'down, j, k, down: the second row has the focus');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.location.search.startsWith('?s='));
  assert.equal(new URL(page.url()).search, second);
  await page.goBack();
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('type')), 'search', '/ focuses the search box');
  await page.goForward();
  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('heading', { level: 1 }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(overflow, 0, 'no horizontal scroll at 360 px');
  await page.screenshot({ path: join(SHOTS, 'session-360.png'), fullPage: true });
  await page.setViewportSize({ width: 1200, height: 900 });
});

test('no console errors and no request left the server', { skip }, () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreign, []);
});

test('a lost connection shows a banner; the page catches up from the last seq after it', { skip }, async () => {
  await page.goto(`${server.url}?s=${a}`);
  await page.getByText('typed into the web page').waitFor();
  const port = server.port;
  await server.stop();
  await page.getByTestId('conn-lost').waitFor();
  // Appended while nobody listens: the page must replay it after reconnecting.
  cli(['session', 'resume', a]);
  cli(['session', 'append', a, '--text', 'written while the server was down']);
  cli(['session', 'release', a]);
  server = await startServer(home, ['--port', String(port)]);
  await page.getByText('written while the server was down').waitFor();
  assert.equal(await page.getByTestId('conn-lost').count(), 0);
});
