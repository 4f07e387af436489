// Output conventions of cli.md in one place: --json (one document), exit codes 0/1/2,
// `baton: <CODE> <message>` on stderr for refusals, colour only on a TTY without NO_COLOR.
import pc from 'picocolors';
import { BatonError } from '../core/errors.ts';
import { formatDuration } from '../core/duration.ts';
import { resolveHome } from '../store/home.ts';
import { FsStore } from '../store/store.ts';

export interface GlobalOptions {
  home?: string;
  json?: boolean;
  quiet?: boolean;
}

export const useColor = (): boolean => !!process.stdout.isTTY && !process.env.NO_COLOR;
export const color = {
  dim: (s: string) => (useColor() ? pc.dim(s) : s),
  bold: (s: string) => (useColor() ? pc.bold(s) : s),
  green: (s: string) => (useColor() ? pc.green(s) : s),
  yellow: (s: string) => (useColor() ? pc.yellow(s) : s),
  red: (s: string) => (useColor() ? pc.red(s) : s),
};

export function openStore(g: GlobalOptions): FsStore {
  return new FsStore(resolveHome(g.home), { contextOnAppend: true });
}

/**
 * The one `--json` envelope (docs/cli.md, "JSON output"): every command prints exactly one
 * object with a boolean `ok`; `ok:false` always carries `error` = {code, message, ...details}
 * (store.md, "Error codes"). The type makes a command that forgets it fail to compile.
 */
export interface JsonError {
  code: string;
  message: string;
  [detail: string]: unknown;
}
export type JsonEnvelope = ({ ok: true } | { ok: false; error: JsonError }) & { [field: string]: unknown };

/** A refusal or failure as the envelope: `{ok:false, error:{code, message, ...details}}`. */
export function errorEnvelope(code: string, message: string, details: Record<string, unknown> = {}): JsonEnvelope {
  const { code: _code, message: _message, ...rest } = details;
  return { ok: false, error: { code, message, ...rest } };
}

/** The fields with ok:true, or, given a problem, ok:false with it as the error (a result that reports a problem: doctor, verify). */
export function envelope(fields: Record<string, unknown>, problem?: JsonError | null): JsonEnvelope {
  const { ok: _ok, error: _error, ...rest } = fields;
  return problem ? { ...rest, ok: false, error: problem } : { ...rest, ok: true };
}

/**
 * Prints a refusal in the envelope on stdout, for paths that run outside run(): commander's
 * own usage errors, `--version`, an unknown command. The caller still writes its stderr line.
 */
export function printJsonError(code: string, message: string, details: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify(errorEnvelope(code, message, details))}\n`);
}

/** Whether `--json` is on, for paths that run before (or without) commander's parse: argv up to `--`. */
export function jsonRequested(argv: readonly string[] = process.argv.slice(2)): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** A result a command hands back: what --json prints, and the human text. */
export interface CommandResult {
  json: JsonEnvelope | null;
  text?: string | string[];
  /** Exit code for a result that is not a refusal but still signals a problem (doctor, verify). */
  exitCode?: number;
  /** The command streamed its own output already (its own envelope under --json). */
  printed?: boolean;
}

export function warn(g: GlobalOptions, code: string, message: string): void {
  if (!g.quiet) process.stderr.write(`baton: ${code} ${message}\n`);
}

/** Runs a command body, printing its result or its error by the conventions. */
export async function run(g: GlobalOptions, body: () => CommandResult | Promise<CommandResult>): Promise<void> {
  try {
    const r = await body();
    // A result that reports a problem (doctor, verify) says it on stderr like a refusal.
    if (r.json && !r.json.ok) process.stderr.write(`baton: ${r.json.error.code} ${r.json.error.message}\n`);
    if (r.printed) {
      // streamed by the command itself
    } else if (g.json) process.stdout.write(`${JSON.stringify(r.json)}\n`);
    else if (r.text !== undefined && !g.quiet) {
      const t = Array.isArray(r.text) ? r.text.join('\n') : r.text;
      if (t.length) process.stdout.write(t.endsWith('\n') ? t : `${t}\n`);
    }
    if (r.exitCode) process.exitCode = r.exitCode;
  } catch (e) {
    reportError(g, e);
  }
}

export function reportError(g: GlobalOptions, e: unknown): void {
  if (e instanceof BatonError) {
    if (g.json) printJsonError(e.code, e.message, e.details);
    process.stderr.write(`baton: ${e.code} ${e.message}\n`);
    process.exitCode = 2;
    return;
  }
  const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  if (g.json) printJsonError('INTERNAL', msg);
  process.stderr.write(`baton: ${msg}\n`);
  if (process.env.BATON_DEBUG === '1' && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  process.exitCode = 1;
}

/** Aligned columns for human tables. */
export function table(rows: string[][], header?: string[]): string[] {
  const all = header ? [header, ...rows] : rows;
  const widths: number[] = [];
  for (const r of all) {
    for (let i = 0; i < r.length; i++) widths[i] = Math.max(widths[i] ?? 0, r[i].length);
  }
  const out = all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd());
  if (header) out[0] = color.bold(out[0]);
  return out;
}

export function relativeTime(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '-';
  const d = now - t;
  return d >= 0 ? `${formatDuration(d)} ago` : `in ${formatDuration(-d)}`;
}

/** Commander collects repeated options with this. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
