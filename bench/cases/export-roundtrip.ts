// export.roundtrip (bench.md): `baton session export` + `baton session import` of a session of
// 100,000 events (quick: 10,000) and a few artifacts, against `zip -r` + `unzip` of the same
// session folder, interleaved. Figures are MB/s of the session's bytes (log + artifacts); the
// ratio is ours / zip's (1.0 = as fast as zip+unzip; higher is better). Reported, no target:
// the export also re-reads and re-chains the log, redacts and rewrites paths; the import
// verifies every digest and the chain before it writes anything. A round trip that loses an
// event fails the case. The session is generated here (seeded) with the store's line encoder.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type EventInput, encodeEvent } from '../../src/core/events.ts';
import { MiB, interleaved, prng, randInt, randText, runProcess } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

/** A session folder of `events` chained events and `artifacts` files of 1 MiB each; returns its byte count. */
export function generateSession(dir: string, events: number, artifacts: number, seed: number, workspace: string): number {
  const rng = prng(seed);
  fs.mkdirSync(join(dir, 'artifacts'), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(join(dir, 'events.jsonl'), 'w', 0o600);
  let h = '';
  let t = Date.UTC(2026, 10, 1, 9, 0, 0);
  let chunk = '';
  let bytes = 0;
  const put = (seq: number, e: EventInput): void => {
    t += randInt(rng, 5, 5000);
    const enc = encodeEvent(seq, new Date(t).toISOString(), e, h);
    h = enc.h;
    chunk += enc.line;
    if (chunk.length > 4 * MiB) flush();
  };
  const flush = (): void => {
    const buf = Buffer.from(chunk);
    fs.writeSync(fd, buf);
    bytes += buf.length;
    chunk = '';
  };
  try {
    put(1, { type: 'session.created', surface: 'cli', actor: 'user', payload: { title: 'export bench', workspace: { cwd: workspace }, allowed_runtimes: ['cli', 'hook'], created_by: 'cli' } });
    let seq = 1;
    for (let a = 0; a < artifacts; a++) {
      const name = `data-${a}.txt`;
      const body = Buffer.from(randText(rng, MiB));
      fs.writeFileSync(join(dir, 'artifacts', name), body, { mode: 0o600 });
      bytes += body.length;
      put(++seq, { type: 'artifact.added', surface: 'cli', actor: 'agent', payload: { path: name, sha256: 'a'.repeat(64) } });
    }
    while (seq < events) {
      const r = rng();
      if (r < 0.6) put(++seq, { type: 'context.appended', surface: 'cli', actor: 'agent', payload: { text: `${randText(rng, randInt(rng, 40, 600))} in ${workspace}/src`, tags: ['bench'] } });
      else if (r < 0.85) put(++seq, { type: 'prompt.submitted', surface: 'hook:claude', actor: 'user', payload: { episode: 'ep-1', text: randText(rng, randInt(rng, 20, 800)), digest: h } });
      else put(++seq, { type: 'x.bench.tool', surface: 'hook:claude', actor: 'agent', payload: { tool: 'shell', exit: randInt(rng, 0, 2), out: randText(rng, randInt(rng, 0, 300)) } });
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

const exportRoundtrip: BenchCase = {
  name: 'export.roundtrip',
  async run(ctx): Promise<CaseResult> {
    for (const tool of ['zip', 'unzip']) {
      if (spawnSync(tool, ['-v'], { stdio: 'ignore' }).status !== 0) throw new Error(`${tool} is not installed (apt-get install zip unzip): it is the baseline`);
    }
    const nEvents = ctx.quick ? 10_000 : 100_000;
    const nArtifacts = ctx.quick ? 2 : 8;
    const pairs = 3;
    const home = join(ctx.tmp, 'home');
    const id = 'export-bench';
    const dir = join(home, 'sessions', id);
    const ws = join(ctx.tmp, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    const bytes = generateSession(dir, nEvents, nArtifacts, 0xe4b0, ws);
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const env = { BATON_HOME: home, NO_COLOR: '1', HOME: ctx.tmp };
    const ourZip = join(ctx.tmp, 'ours.zip');
    const theirZip = join(ctx.tmp, 'theirs.zip');
    const importHome = join(ctx.tmp, 'import-home');
    const unzipped = join(ctx.tmp, 'unzipped');
    const clean = (): void => {
      for (const p of [ourZip, theirZip, importHome, unzipped]) fs.rmSync(p, { recursive: true, force: true });
    };
    let imported = 0;
    const ours = (): number => {
      clean();
      const ex = runProcess(process.execPath, [bin, 'session', 'export', id, '--out', ourZip], env);
      const im = runProcess(process.execPath, [bin, 'session', 'import', ourZip, '--cwd', ws, '--json'], { ...env, BATON_HOME: importHome }, { stdout: 'pipe' });
      imported = JSON.parse(im.stdout).events;
      return ex.ms + im.ms;
    };
    const theirs = (): number => {
      clean();
      const z = runProcess('zip', ['-qr', theirZip, '.'], undefined, { cwd: dir });
      const u = runProcess('unzip', ['-q', theirZip, '-d', unzipped]);
      return z.ms + u.ms;
    };
    ours();
    theirs();
    const r = await interleaved(pairs, ours, theirs);
    const zipBytes = fs.statSync(theirZip).size;
    clean();
    ours();
    const ourBytes = fs.statSync(ourZip).size;
    clean();
    const mbps = (ms: number): number => bytes / 1e6 / (ms / 1000);
    return {
      name: 'export.roundtrip',
      ours: mbps(r.a),
      baseline: mbps(r.b),
      ratio: 1 / r.ratio,
      unit: 'MB/s',
      target: 'ratio reported (ours / zip+unzip MB/s); every event imported',
      pass: imported === nEvents,
      details: { events: nEvents, artifacts: nArtifacts, session_mib: bytes / MiB, ours_ms: r.a, zip_unzip_ms: r.b, ours_zip_mib: ourBytes / MiB, zip_mib: zipBytes / MiB, imported, pairs },
    };
  },
};

export default exportRoundtrip;
