// Shared helpers of the bench cases (bench.md): interleaved A/B measurement with the median
// of per-pair ratios, wall time and peak RSS of a child process, a seeded PRNG.
// Every figure a case reports is a ratio against a baseline measured in the same run;
// absolute numbers are printed beside it for the record, never used as the bar.
import { type SpawnSyncOptions, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Milliseconds from a monotonic clock. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** One measurement: return a number (a time, a rate, ...) or nothing to have its wall time in ms taken. */
export type Measure = () => number | undefined | Promise<number | undefined>;

export interface InterleavedResult {
  /** Median of the per-pair ratios a_i / b_i. */
  ratio: number;
  /** Median of A's and of B's measurements. */
  a: number;
  b: number;
  ratios: number[];
  aSamples: number[];
  bSamples: number[];
}

async function measureOnce(m: Measure): Promise<number> {
  const t0 = nowMs();
  const v = await m();
  const dt = nowMs() - t0;
  return typeof v === 'number' ? v : dt;
}

/** Runs A B A B ... `pairs` times; returns the median per-pair ratio A/B and each side's median. */
export async function interleaved(pairs: number, a: Measure, b: Measure): Promise<InterleavedResult> {
  const aSamples: number[] = [];
  const bSamples: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const va = await measureOnce(a);
    const vb = await measureOnce(b);
    aSamples.push(va);
    bSamples.push(vb);
    ratios.push(va / vb);
  }
  return { ratio: median(ratios), a: median(aSamples), b: median(bSamples), ratios, aSamples, bSamples };
}

export interface ProcessOptions {
  input?: string | Buffer;
  cwd?: string;
  /** Exit codes that count as success (default [0]). */
  okCodes?: number[];
  /** Where the child's stdout goes: discarded (/dev/null, the default) or captured. */
  stdout?: 'ignore' | 'pipe';
  timeoutMs?: number;
}

export interface ProcessRun {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Whether a variable makes every Node process of this machine start slower (or start
 * differently) and is not part of the environment a user's agent runs hooks in: NODE_OPTIONS,
 * NODE_EXTRA_CA_CERTS (a CA bundle parsed at every start: ~30 ms here), NODE_COMPILE_CACHE,
 * every other NODE_* and UV_* knob, and the OpenSSL configuration Node reads at start.
 */
export function slowsNodeStart(name: string): boolean {
  return /^(NODE_|UV_)/.test(name) || name === 'OPENSSL_CONF';
}

/** `env` without the variables of slowsNodeStart, and their names (bench.md, "Honest baselines"). */
export function userEnv(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; removed: string[] } {
  const out: NodeJS.ProcessEnv = {};
  const removed: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (slowsNodeStart(k)) removed.push(k);
    else out[k] = v;
  }
  return { env: out, removed: removed.sort() };
}

/** The environment of a measured child: the user's environment (userEnv) plus the case's own variables. */
function envOf(env?: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...userEnv(process.env).env, ...env })) if (v !== undefined) out[k] = v;
  return out;
}

/** Runs one child process to its end; its wall time in ms, exit code and output. Throws on an exit code not in okCodes. */
export function runProcess(cmd: string, args: string[], env?: Record<string, string | undefined>, opts: ProcessOptions = {}): ProcessRun {
  const so: SpawnSyncOptions = {
    cwd: opts.cwd,
    env: envOf(env),
    input: opts.input,
    stdio: ['pipe', opts.stdout ?? 'ignore', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 300_000,
  };
  const t0 = nowMs();
  const r = spawnSync(cmd, args, so);
  const ms = nowMs() - t0;
  if (r.error) throw r.error;
  const code = r.status ?? -1;
  const stdout = r.stdout ? r.stdout.toString() : '';
  const stderr = r.stderr ? r.stderr.toString() : '';
  if (!(opts.okCodes ?? [0]).includes(code)) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${code}${r.signal ? ` (${r.signal})` : ''}: ${stderr.trim().slice(0, 500)}`);
  }
  return { ms, code, stdout, stderr };
}

/** The wall time in ms of one child process (stdout to /dev/null unless opts.stdout says otherwise). */
export function timeProcess(cmd: string, args: string[], env?: Record<string, string | undefined>, opts: ProcessOptions = {}): number {
  return runProcess(cmd, args, env, opts).ms;
}

const TIME_BIN = '/usr/bin/time';

function hasGnuTime(): boolean {
  try {
    return spawnSync(TIME_BIN, ['-f', '%M', 'true'], { stdio: 'ignore' }).status === 0;
  } catch {
    return false;
  }
}

export interface RssRun extends ProcessRun {
  peakRssBytes: number;
  method: 'gnu-time' | 'node-preload' | 'proc-poll';
}

/**
 * Peak RSS (the high-water mark, VmHWM / ru_maxrss) of one child process. Uses GNU time when
 * present; else, for a Node child, a preload that reports process.resourceUsage().maxRSS at
 * exit; else polls /proc/<pid>/status (may miss a peak in the last milliseconds).
 */
export async function peakRssOfChild(cmd: string, args: string[], env?: Record<string, string | undefined>, opts: ProcessOptions = {}): Promise<RssRun> {
  const dir = fs.mkdtempSync(join(tmpdir(), 'baton-bench-rss-'));
  try {
    const out = join(dir, 'rss');
    if (hasGnuTime()) {
      const r = runProcess(TIME_BIN, ['-f', '%M', '-o', out, cmd, ...args], env, opts);
      const kib = Number(fs.readFileSync(out, 'utf8').trim().split('\n').pop());
      return { ...r, peakRssBytes: kib * 1024, method: 'gnu-time' };
    }
    if (cmd === process.execPath) {
      const pre = join(dir, 'rss-preload.cjs');
      fs.writeFileSync(
        pre,
        `process.on('exit', () => { require('fs').writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)); });\n`,
      );
      const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(pre)}`.trim();
      const r = runProcess(cmd, args, { ...env, NODE_OPTIONS: nodeOptions }, opts);
      return { ...r, peakRssBytes: Number(fs.readFileSync(out, 'utf8')) * 1024, method: 'node-preload' };
    }
    return await pollRss(cmd, args, env, opts);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function pollRss(cmd: string, args: string[], env: Record<string, string | undefined> | undefined, opts: ProcessOptions): Promise<RssRun> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(cmd, args, { cwd: opts.cwd, env: envOf(env), stdio: ['pipe', opts.stdout ?? 'ignore', 'pipe'] });
    let peak = 0;
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d) => (stderr += d));
    const poll = (): void => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]) * 1024);
      } catch {}
    };
    const timer = setInterval(poll, 5);
    child.on('error', reject);
    child.on('exit', () => poll());
    child.on('close', (code) => {
      clearInterval(timer);
      const run: RssRun = { ms: nowMs() - t0, code: code ?? -1, stdout, stderr, peakRssBytes: peak, method: 'proc-poll' };
      if (!(opts.okCodes ?? [0]).includes(run.code)) reject(new Error(`${cmd} exited ${run.code}: ${stderr.trim().slice(0, 500)}`));
      else resolve(run);
    });
    child.stdin?.end(opts.input ?? '');
  });
}

/** A seeded PRNG (mulberry32): the same seed gives the same fixture data on every run. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randInt(rng: () => number, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

const WORDS = (
  'session pointer resume agent context build green red test merge branch commit review deploy hook prompt episode ' +
  'compaction clear restart log chain seq lease writer surface store index search ref source stale fresh expired ' +
  'the a of to and in is it that for on with as was at by this be from or an are not but which'
).split(' ');

/** Deterministic prose of about `bytes` ASCII bytes. */
export function randText(rng: () => number, bytes: number): string {
  const parts: string[] = [];
  let n = 0;
  while (n < bytes) {
    const w = WORDS[Math.floor(rng() * WORDS.length)];
    parts.push(w);
    n += w.length + 1;
  }
  return parts.join(' ').slice(0, bytes);
}

export const MiB = 1024 * 1024;

/** A number for a table: 3 significant digits, no exponent for everyday magnitudes. */
export function fmt(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '-';
  const a = Math.abs(n);
  if (Number.isInteger(n) && a < 1e15) return n.toLocaleString('en-US');
  if (a >= 1000) return Math.round(n).toLocaleString('en-US');
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

/** A child process of a race: loaded ("ready" on stdout), released together ("go" on stdin), one JSON summary line at the end. */
export interface Racer<T> {
  ready: Promise<void>;
  go: () => void;
  done: Promise<T>;
}

export function startRacer<T>(label: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Racer<T> {
  const child = spawn(process.execPath, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((res) => (onReady = res));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (out.startsWith('ready\n')) onReady();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const done = new Promise<T>((res, rej) => {
    child.on('error', rej);
    child.on('close', (code) => {
      onReady(); // a racer that died before "ready" must not hold the others back
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) rej(new Error(`${label} exited ${code}: ${err.trim().slice(0, 500)}`));
      else res(JSON.parse(last) as T);
    });
  });
  return { ready, done, go: () => child.stdin.end('go\n') };
}
