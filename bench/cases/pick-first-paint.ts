// pick.first-paint (transcripts.md, "What is measured"): `baton pick --all` over 10,000
// sessions (quick: 1,000) in a terminal (a pty made by util-linux `script`), from the spawn
// until the first frame with the list is on the pty (the footer is the frame's last line, and
// Ink writes a frame in one piece); then the picker is hung up. Baseline: `node -e 0` under the
// same `script`, to its exit. Target ratio <= 5.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { indexFixture } from '../index-fixture.ts';
import { interleaved, nowMs, runProcess, userEnv } from '../lib.ts';
import type { BenchCase, CaseResult } from '../types.ts';

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `cmd` on a pty; resolves, once it has exited, with the ms until `until` showed in its
 * output (or until it exited, when `until` is null). The picker is ended by a Ctrl-C typed
 * into the pty, as a person would; killed if it is still there 10 s later.
 */
function underPty(cmd: string, env: NodeJS.ProcessEnv, until: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    let seen: number | null = null;
    let killer: NodeJS.Timeout | null = null;
    child.stdout.on('data', (b: Buffer) => {
      if (seen !== null) return;
      out += b.toString('utf8');
      if (until !== null && out.includes(until)) {
        seen = nowMs() - t0;
        child.stdin.write('\x03');
        killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (killer) clearTimeout(killer);
      if (until === null) resolve(nowMs() - t0);
      else if (seen !== null) resolve(seen);
      else reject(new Error(`the picker exited ${code} before drawing: ${out.slice(-400)}`));
    });
  });
}

const pickFirstPaint: BenchCase = {
  name: 'pick.first-paint',
  async run(ctx): Promise<CaseResult> {
    if (spawnSync('script', ['--version']).status !== 0) throw new Error('util-linux script(1) is needed for a pty');
    const sessions = ctx.quick ? 1000 : 10_000;
    const fx = indexFixture(sessions, 20);
    const bin = join(ctx.root, 'bin', 'baton.cjs');
    const env = { ...userEnv(process.env).env, BATON_HOME: fx.home, NO_COLOR: '1', TERM: 'xterm-256color' };
    if (!fs.existsSync(join(fx.home, 'baton.db'))) runProcess(process.execPath, [bin, 'index', 'rebuild'], env);
    const pick = `${shellQuote(process.execPath)} ${shellQuote(bin)} pick --all`;
    const floor = `${shellQuote(process.execPath)} -e 0`;
    const FOOTER = 'Esc quit';
    await underPty(pick, env, FOOTER); // warm: the page cache, the index caught up
    const pairs = ctx.quick ? 5 : 9;
    const r = await interleaved(
      pairs,
      () => underPty(pick, env, FOOTER),
      () => underPty(floor, env, null),
    );
    return {
      name: 'pick.first-paint',
      ours: r.a,
      baseline: r.b,
      ratio: r.ratio,
      unit: 'ms',
      target: 'ratio <= 5',
      pass: r.ratio <= 5,
      details: { sessions, ratios: r.ratios, bundle_bytes: fs.statSync(join(ctx.root, 'dist', 'pick.mjs')).size },
    };
  },
};

export default pickFirstPaint;
