// log.stream (bench.md): `baton session log ID --json` over a 200 MiB log (quick: 20 MiB) to
// /dev/null, against `cat` of the same file, interleaved; peak RSS of the baton process must
// stay ≤ 150 MiB (the log is streamed, never held). The ratio is reported, not a target.
// The log is generated here (seeded) with the store's own line encoder, chained like a real one.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type EventInput, encodeEvent } from '../../src/core/events.ts';
import { MiB, interleaved, peakRssOfChild, prng, randInt, randText, timeProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const RSS_LIMIT = 150 * MiB;

/** Writes a valid chained events.jsonl of about `bytes` bytes; returns its event count and size. */
export function generateLog(path: string, bytes: number, seed: number, workspace: string): { events: number; bytes: number } {
  const rng = prng(seed);
  const fd = fs.openSync(path, 'w', 0o600);
  let h = '';
  let seq = 0;
  let size = 0;
  let t = Date.UTC(2026, 10, 1, 9, 0, 0);
  let chunk: string[] = [];
  let chunkBytes = 0;
  const put = (e: EventInput): void => {
    seq++;
    t += randInt(rng, 5, 5000);
    const enc = encodeEvent(seq, new Date(t).toISOString(), e, h);
    h = enc.h;
    chunk.push(enc.line);
    chunkBytes += enc.line.length;
    if (chunkBytes > 4 * MiB) flush();
  };
  const flush = (): void => {
    const buf = Buffer.from(chunk.join(''));
    fs.writeSync(fd, buf);
    size += buf.length;
    chunk = [];
    chunkBytes = 0;
  };
  try {
    put({
      type: 'session.created',
      surface: 'cli',
      actor: 'user',
      payload: { title: 'log stream bench', workspace: { cwd: workspace }, allowed_runtimes: ['cli', 'hook'], created_by: 'cli' },
    });
    let episode = 0;
    while (size + chunkBytes < bytes) {
      const r = rng();
      if (r < 0.55) {
        put({ type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text: randText(rng, randInt(rng, 40, 1200)), tags: ['bench'] } });
      } else if (r < 0.85) {
        const text = randText(rng, randInt(rng, 20, 3000));
        put({ type: 'prompt.submitted', surface: 'hook:claude', actor: 'user', payload: { episode: `ep-${episode}`, text, digest: h.repeat(2) } });
      } else if (r < 0.98) {
        put({
          type: 'x.bench.tool',
          surface: 'hook:claude',
          actor: 'agent',
          payload: { tool: 'shell', args: { cmd: randText(rng, 60) }, exit: randInt(rng, 0, 2), out: randText(rng, randInt(rng, 0, 400)) },
        });
      } else {
        episode++;
        put({
          type: 'episode.opened',
          surface: 'hook:claude',
          actor: 'system',
          payload: { episode: `ep-${episode}`, provider: 'claude', provider_session_id: `ps-${episode}`, source: 'startup', context_file: `contexts/ep-${episode}.md` },
        });
      }
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  return { events: seq, bytes: size };
}

const logStream: BenchCase = {
  name: 'log.stream',
  async run(ctx): Promise<CaseResult> {
    const target = (ctx.quick ? 20 : 200) * MiB;
    const pairs = 3;
    const home = join(ctx.tmp, 'home');
    const id = 'log-stream-bench';
    const dir = join(home, 'sessions', id);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, 'events.jsonl');
    const gen = generateLog(path, target, 0x10657, ctx.tmp);

    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const env = { BATON_HOME: home, NO_COLOR: '1' };
    const args = [bin, 'session', 'log', id, '--json'];
    // One checked run first: every event comes out (and the page cache is warm for both sides).
    const out = join(ctx.tmp, 'out.jsonl');
    const outFd = fs.openSync(out, 'w');
    try {
      const { spawnSync } = await import('node:child_process');
      const r = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', outFd, 'pipe'] });
      if (r.status !== 0) throw new Error(`baton session log exited ${r.status}: ${r.stderr}`);
    } finally {
      fs.closeSync(outFd);
    }
    // --json is one envelope: {"ok":true,"session":ID,"events":[ + the lines joined by commas + ]}\n.
    const envelopeBytes = Buffer.byteLength(`{"ok":true,"session":${JSON.stringify(id)},"events":[`) + 2;
    const printed = fs.statSync(out).size - envelopeBytes;
    fs.rmSync(out);
    timeProcess('cat', [path]);

    const r = await interleaved(
      pairs,
      () => timeProcess(process.execPath, args, env),
      () => timeProcess('cat', [path]),
    );
    const rss = await peakRssOfChild(process.execPath, args, env);
    const mibPerS = gen.bytes / MiB / (r.a / 1000);
    return {
      name: 'log.stream',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'ms',
      target: 'peak RSS <= 150 MiB; ratio reported',
      pass: rss.peakRssBytes <= RSS_LIMIT && printed === gen.bytes,
      details: {
        log_mib: gen.bytes / MiB,
        events: gen.events,
        printed_all: printed === gen.bytes,
        peak_rss_mib: rss.peakRssBytes / MiB,
        rss_method: rss.method,
        ours_mib_per_s: mibPerS,
        pairs,
      },
    };
  },
};

export default logStream;
