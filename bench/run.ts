// The bench harness (bench.md). `npm run bench [-- --quick] [-- --json] [-- NAME...]`.
// Runs every bench/cases/*.ts (default export: a BenchCase, bench/types.ts), each in its own
// child process (a clean heap for RSS figures; a crash or a hang fails that case only) with a
// fresh temporary folder removed after. A case that throws is reported as failed and the others
// still run. --json prints exactly one JSON document on stdout and nothing else (progress goes
// to stderr). Exit 0 even when a target is missed: the bench is not a test; FAIL is printed.
// Honest baselines: the cases run without the variables that slow every Node start (userEnv in
// lib.ts: NODE_OPTIONS, NODE_EXTRA_CA_CERTS ...), and the output names the ones removed.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pc from 'picocolors';
import { fmt, userEnv } from './lib.ts';
import type { BenchCase, BenchContext, CaseResult } from './types.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CASES_DIR = join(ROOT, 'bench', 'cases');
/** The environment every case (and so every measured process, ours and the baseline) runs in. */
const CLEAN = userEnv(process.env);

interface Args {
  quick: boolean;
  json: boolean;
  names: string[];
  child?: { file: string; out: string; tmp: string };
}

function parseArgs(argv: string[]): Args {
  const a: Args = { quick: false, json: false, names: [] };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (x === '--quick') a.quick = true;
    else if (x === '--json') a.json = true;
    else if (x === '--child') a.child = { file: argv[++i], out: argv[++i], tmp: argv[++i] };
    else if (x === '--help' || x === '-h') {
      process.stderr.write('usage: npm run bench -- [--quick] [--json] [case-name-or-prefix ...]\n');
      process.exit(0);
    } else if (x.startsWith('-')) {
      process.stderr.write(`bench: unknown option ${x}\n`);
      process.exit(2);
    } else a.names.push(x);
  }
  return a;
}

/** A result row of the JSON document: CaseResult plus the harness's own fields. */
type Row = Omit<CaseResult, 'ours'> & {
  /** null when the case failed before measuring. */
  ours: number | null;
  file: string;
  elapsed_ms: number;
  error?: string;
};

const finite = (n: unknown): number | null => (typeof n === 'number' && Number.isFinite(n) ? n : null);

function rowOf(r: CaseResult, file: string, elapsed: number): Row {
  return {
    name: String(r.name),
    ours: finite(r.ours),
    baseline: finite(r.baseline),
    ratio: finite(r.ratio),
    unit: String(r.unit ?? ''),
    target: String(r.target ?? ''),
    pass: r.pass === true,
    ...(r.details ? { details: r.details } : {}),
    file,
    elapsed_ms: Math.round(elapsed),
  };
}

// --- the child: runs one case and writes its result to a file --------------------------

async function runChild(a: Args & { child: NonNullable<Args['child']> }): Promise<void> {
  // stdout of a case belongs to the harness's stderr (the parent wires it so); results go to a file.
  const mod = await import(pathToFileURL(a.child.file).href);
  const c = mod.default as BenchCase;
  if (!c || typeof c.run !== 'function') throw new Error(`${a.child.file} has no default export with run()`);
  // The name first, so a case that throws is still reported under it.
  fs.writeFileSync(a.child.out, JSON.stringify({ name: c.name }));
  const ctx: BenchContext = { quick: a.quick, tmp: a.child.tmp, root: ROOT };
  let res: CaseResult | CaseResult[];
  try {
    res = await c.run(ctx);
  } catch (e) {
    fs.writeFileSync(a.child.out, JSON.stringify({ name: c.name, error: e instanceof Error ? e.message : String(e) }));
    throw e;
  }
  fs.writeFileSync(a.child.out, JSON.stringify({ results: Array.isArray(res) ? res : [res] }));
}

// --- the parent ---------------------------------------------------------------------------

function caseFiles(names: string[]): string[] {
  const files = fs
    .readdirSync(CASES_DIR)
    .filter((n) => n.endsWith('.ts') && !n.startsWith('_') && !n.endsWith('.d.ts'))
    .sort()
    .map((n) => join(CASES_DIR, n));
  if (names.length === 0) return files;
  // A name selects a file by its stem (append-durable) or by case-name prefix (append.durable, index.).
  return files.filter((f) => {
    const stem = basename(f, '.ts');
    return names.some((n) => stem === n || stem.startsWith(n.replace(/\./g, '-')));
  });
}

/** What the child wrote before failing: the case's name and, when run() threw, its message. */
function partialOf(out: string): { name?: string; error?: string } {
  try {
    const v = JSON.parse(fs.readFileSync(out, 'utf8'));
    return { name: typeof v.name === 'string' ? v.name : undefined, error: typeof v.error === 'string' ? v.error : undefined };
  } catch {
    return {};
  }
}

function runCaseProcess(file: string, quick: boolean, timeoutMs: number): Promise<{ rows: Row[]; elapsed: number }> {
  const tmp = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), `baton-bench-${basename(file, '.ts')}-`)));
  const out = join(tmpdir(), `baton-bench-result-${process.pid}-${basename(file, '.ts')}.json`);
  const args = ['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), '--child', file, out, tmp, ...(quick ? ['--quick'] : [])];
  const started = Date.now();
  const stem = basename(file, '.ts');
  const failed = (error: string): Row => ({
    name: partialOf(out).name ?? stem.replace(/-/g, '.'),
    ours: null,
    baseline: null,
    ratio: null,
    unit: '',
    target: '',
    pass: false,
    file: `bench/cases/${basename(file)}`,
    elapsed_ms: Date.now() - started,
    error,
  });
  return new Promise((done) => {
    // Own process group, so a timeout also ends the case's own children (workers).
    const child = spawn(process.execPath, args, { cwd: ROOT, env: CLEAN.env, stdio: ['ignore', 2, 'pipe'], detached: true });
    let stderrTail = '';
    child.stderr?.on('data', (d: Buffer) => {
      process.stderr.write(d);
      stderrTail = (stderrTail + d.toString()).slice(-2000);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }, timeoutMs);
    const onSignal = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
      fs.rmSync(tmp, { recursive: true, force: true });
      process.exit(130);
    };
    process.once('SIGINT', onSignal);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      process.removeListener('SIGINT', onSignal);
      const elapsed = Date.now() - started;
      let rows: Row[];
      try {
        if (timedOut) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`);
        if (code !== 0) {
          const thrown = partialOf(out).error;
          if (thrown !== undefined) throw new Error(`threw: ${thrown}`);
          const last = stderrTail.trim().split('\n').filter(Boolean).slice(-3).join(' | ');
          throw new Error(`case process exited ${code ?? signal}: ${last}`);
        }
        const { results } = JSON.parse(fs.readFileSync(out, 'utf8')) as { results: CaseResult[] };
        rows = results.map((r) => rowOf(r, `bench/cases/${basename(file)}`, elapsed));
      } catch (e) {
        rows = [failed((e as Error).message)];
      }
      fs.rmSync(out, { force: true });
      fs.rmSync(tmp, { recursive: true, force: true });
      done({ rows, elapsed });
    });
  });
}

function withUnit(n: number | null, unit: string): string {
  if (n === null) return '-';
  return unit ? `${fmt(n)} ${unit}` : fmt(n);
}

function detailText(d: Record<string, unknown> | undefined): string {
  if (!d) return '';
  return Object.entries(d)
    .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    .map(([k, v]) => `${k}=${typeof v === 'number' ? fmt(v) : String(v)}`)
    .join('  ');
}

function printTable(rows: Row[], quick: boolean): void {
  process.stdout.write(pc.dim(`node ${process.version}; removed from every measured environment: ${CLEAN.removed.join(' ') || '(nothing)'}\n`));
  const head = ['case', 'ours', 'baseline', 'ratio', 'target', 'result'];
  const body = rows.map((r) => [
    r.name,
    withUnit(r.ours, r.unit),
    withUnit(r.baseline, r.unit),
    r.ratio === null ? '-' : fmt(r.ratio),
    r.target || '-',
    r.pass ? 'pass' : 'FAIL',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const out: string[] = [];
  out.push(pc.bold(line(head)));
  for (let i = 0; i < rows.length; i++) {
    const text = line(body[i]);
    out.push(rows[i].pass ? text : pc.red(pc.bold(text)));
  }
  out.push('');
  for (const r of rows) {
    const d = r.error ? `error: ${r.error}` : detailText(r.details);
    out.push(`${r.name} (${fmt(r.elapsed_ms / 1000)} s): ${d}`);
  }
  const failed = rows.filter((r) => !r.pass);
  out.push('');
  out.push(
    failed.length
      ? pc.red(pc.bold(`FAIL: ${failed.length} of ${rows.length} missed their target: ${failed.map((r) => r.name).join(', ')}`))
      : pc.green(`all ${rows.length} cases met their targets${quick ? ' (--quick)' : ''}`),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  if (a.child) {
    await runChild(a as Args & { child: NonNullable<Args['child']> });
    return;
  }
  const files = caseFiles(a.names);
  if (files.length === 0) {
    process.stderr.write(`bench: no case matches ${a.names.join(' ')}\n`);
    process.exit(2);
  }
  const timeoutMs = (a.quick ? 120 : 600) * 1000;
  const rows: Row[] = [];
  const t0 = Date.now();
  for (const f of files) {
    process.stderr.write(pc.dim(`bench: ${basename(f)}${a.quick ? ' (quick)' : ''} ...\n`));
    const { rows: r } = await runCaseProcess(f, a.quick, timeoutMs);
    for (const row of r) process.stderr.write(pc.dim(`bench:   ${row.name}: ${row.pass ? 'pass' : 'FAIL'}${row.error ? ` (${row.error})` : ''}\n`));
    rows.push(...r);
  }
  process.stderr.write(pc.dim(`bench: ${files.length} files in ${fmt((Date.now() - t0) / 1000)} s\n`));
  if (a.json) process.stdout.write(`${JSON.stringify({ cases: rows, quick: a.quick, node: process.version, env_removed: CLEAN.removed })}\n`);
  else printTable(rows, a.quick);
}

main().catch((e) => {
  process.stderr.write(`bench: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
