// web.first-paint (web.md, bench.md): in Debian's Chromium (headless, playwright-core), the
// time from navigation to the sessions list painted with 10,000 sessions in the store
// (quick: 1,000; the index fixture), and to a session's timeline painted with 100,000 events
// (quick: 10,000), each as a ratio to a static page of the same size (the page's own rendered
// HTML, scripts removed, same stylesheet) served by the same `baton serve`. "Painted" is the
// first animation frame after the first row is in the DOM; the Performance API's
// first-contentful-paint of every load is reported beside it. Runs are interleaved, medians.
// No fixed target in the spec: recorded, with pass = the page paints within 5× the static page.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { type EventInput, encodeEvent } from '../../src/core/events.ts';
import { chromiumMissing, launchChromium } from '../../test/chromium.ts';
import { indexFixture } from '../index-fixture.ts';
import { median, runProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const TARGET_RATIO = 5;

interface Server {
  proc: ChildProcess;
  url: string;
  token: string;
}

function serve(root: string, home: string): Promise<Server> {
  const proc = spawn(process.execPath, [join(root, 'bin', 'baton.cjs'), 'serve', '--port', '0', '--quiet'], { env: { ...process.env, BATON_HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((ok, ko) => {
    proc.on('exit', (code) => ko(new Error(`baton serve exited ${code}: ${err}`)));
    const poll = setInterval(() => {
      try {
        const s = JSON.parse(fs.readFileSync(join(home, 'server.json'), 'utf8'));
        if (s.pid !== proc.pid) return;
        clearInterval(poll);
        ok({ proc, url: s.url, token: fs.readFileSync(join(home, 'server.token'), 'utf8').trim() });
      } catch {}
    }, 50);
    proc.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  });
}

/** One session of `events` events written straight to its log (the store's own encoder). */
function bigSession(home: string, events: number): string {
  const id = 'bench-timeline';
  const dir = join(home, 'sessions', id);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const out = fs.openSync(join(dir, 'events.jsonl'), 'w');
  let h = '';
  let t = Date.UTC(2026, 9, 1);
  const lines: string[] = [];
  const put = (seq: number, e: EventInput): void => {
    t += 1000;
    const enc = encodeEvent(seq, new Date(t).toISOString(), e, h);
    h = enc.h;
    lines.push(enc.line);
    if (lines.length >= 5000) fs.writeSync(out, lines.splice(0).join(''));
  };
  put(1, { type: 'session.created', surface: 'cli', actor: 'user', payload: { title: 'A long session', workspace: { cwd: '/work/bench/long' }, allowed_runtimes: ['cli', 'hook'], created_by: 'cli' } });
  for (let seq = 2; seq <= events; seq++) put(seq, { type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text: `step ${seq}: looked at the parser, the tokenizer and the tests once more`, tags: [] } });
  fs.writeSync(out, lines.join(''));
  fs.closeSync(out);
  return id;
}

const READY_SCRIPT = `window.__ready = new Promise((resolve) => {
  const check = () => {
    if (!document.querySelector(SELECTOR)) return false;
    requestAnimationFrame(() => resolve(performance.now()));
    return true;
  };
  if (check()) return;
  const mo = new MutationObserver(() => { if (check()) mo.disconnect(); });
  mo.observe(document, { childList: true, subtree: true });
});`;

const FCP_SCRIPT = `new Promise((resolve) => {
  const e = performance.getEntriesByName('first-contentful-paint')[0];
  if (e) return resolve(e.startTime);
  new PerformanceObserver((l) => resolve(l.getEntries()[0].startTime)).observe({ type: 'paint', buffered: true });
})`;

/** Loads url in a fresh tab; ms to the first frame after `selector` matched, and the FCP entry. */
async function load(browser: BrowserContext, url: string, selector: string): Promise<{ ready: number; fcp: number }> {
  const page = await browser.newPage();
  try {
    // Strings, not functions: tsx's transform would add helpers the page does not have.
    await page.addInitScript({ content: READY_SCRIPT.replace('SELECTOR', JSON.stringify(selector)) });
    await page.goto(url);
    const ready = (await page.evaluate('window.__ready')) as number;
    const fcp = (await page.evaluate(FCP_SCRIPT)) as number;
    return { ready, fcp };
  } finally {
    await page.close();
  }
}

/** The page's rendered HTML without its scripts: the static twin of the same size. */
async function staticTwin(browser: BrowserContext, url: string, selector: string, file: string): Promise<number> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.waitForSelector(selector);
    const html = (await page.evaluate("(() => { for (const s of document.querySelectorAll('script')) s.remove(); return '<!doctype html>\\n' + document.documentElement.outerHTML; })()")) as string;
    fs.writeFileSync(file, html);
    return Buffer.byteLength(html);
  } finally {
    await page.close();
  }
}

async function measure(browser: BrowserContext, ours: string, twin: string, selector: string, runs: number) {
  const a: { ready: number; fcp: number }[] = [];
  const b: { ready: number; fcp: number }[] = [];
  await load(browser, ours, selector); // warm the server's caches and the browser's
  await load(browser, twin, selector);
  for (let i = 0; i < runs; i++) {
    a.push(await load(browser, ours, selector));
    b.push(await load(browser, twin, selector));
  }
  return { ours: median(a.map((x) => x.ready)), oursFcp: median(a.map((x) => x.fcp)), twin: median(b.map((x) => x.ready)), twinFcp: median(b.map((x) => x.fcp)) };
}

const webFirstPaint: BenchCase = {
  name: 'web.first-paint',
  async run(ctx): Promise<CaseResult[]> {
    const missing = chromiumMissing();
    if (missing) throw new Error(missing);
    const webRoot = join(ctx.root, 'dist', 'web');
    if (!fs.existsSync(join(webRoot, 'index.html'))) throw new Error('dist/web is not built: npm run build');
    const sessions = ctx.quick ? 1000 : 10_000;
    const events = ctx.quick ? 10_000 : 100_000;
    const runs = ctx.quick ? 3 : 7;
    const fx = indexFixture(sessions, 100);
    if (!fs.existsSync(join(fx.home, 'baton.db'))) runProcess(process.execPath, [join(ctx.root, 'bin', 'baton.cjs'), 'index', 'rebuild'], { BATON_HOME: fx.home });
    const longHome = join(ctx.tmp, 'long-home');
    const id = bigSession(longHome, events);
    const twinList = join(webRoot, `.bench-list-${process.pid}.html`);
    const twinTimeline = join(webRoot, `.bench-timeline-${process.pid}.html`);
    const servers: Server[] = [];
    let browser: BrowserContext | null = null;
    try {
      const list = await serve(ctx.root, fx.home);
      servers.push(list);
      const long = await serve(ctx.root, longHome);
      servers.push(long);
      browser = await launchChromium(ctx.tmp);
      // The page keeps its token in the tab (sessionStorage, from ?token=; no cookie: docs/adr/0050),
      // so every page a run opens is given it, as the URL `baton serve --open` prints does.
      const listSel = 'ol.rows a.open';
      const listUrl = `${list.url}?token=${list.token}`;
      const listBytes = await staticTwin(browser, listUrl, listSel, twinList);
      const l = await measure(browser, listUrl, `${list.url}${twinList.slice(webRoot.length + 1)}`, listSel, runs);
      const tlSel = '.win .ev:not(.loading)';
      const sessionUrl = `${long.url}?s=${id}&token=${long.token}`;
      const tlBytes = await staticTwin(browser, sessionUrl, tlSel, twinTimeline);
      const t = await measure(browser, sessionUrl, `${long.url}${twinTimeline.slice(webRoot.length + 1)}`, tlSel, runs);
      const row = (name: string, m: typeof l, bytes: number, extra: Record<string, unknown>): CaseResult => {
        const ratio = m.ours / m.twin;
        return {
          name,
          ours: Math.round(m.ours * 10) / 10,
          baseline: Math.round(m.twin * 10) / 10,
          ratio: Math.round(ratio * 100) / 100,
          unit: 'ms',
          target: `≤ ${TARGET_RATIO}× a static page of the same size (recorded; no spec target)`,
          pass: ratio <= TARGET_RATIO,
          details: { fcp_ms: Math.round(m.oursFcp * 10) / 10, static_fcp_ms: Math.round(m.twinFcp * 10) / 10, static_bytes: bytes, runs, ...extra },
        };
      };
      return [row('web.first-paint.list', l, listBytes, { sessions }), row('web.first-paint.timeline', t, tlBytes, { events })];
    } finally {
      await browser?.close();
      for (const s of servers) s.proc.kill('SIGTERM');
      fs.rmSync(twinList, { force: true });
      fs.rmSync(twinTimeline, { force: true });
    }
  },
};

export default webFirstPaint;
