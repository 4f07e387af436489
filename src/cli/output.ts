// Output conventions of cli.md in one place: --json (one document), exit codes 0/1/2,
// `baton: <CODE> <message>` on stderr for refusals, colour only on a TTY without NO_COLOR.
import pc from 'picocolors';
import { BatonError, errnoError } from '../core/errors.ts';
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

/** A result a command hands back: what --json prints, and the human text. */
export interface CommandResult {
  json: unknown;
  text?: string | string[];
  /** Exit code for a result that is not a refusal but still signals a problem (doctor, verify). */
  exitCode?: number;
  /** The command streamed its own output already. */
  printed?: boolean;
}

export function warn(g: GlobalOptions, code: string, message: string): void {
  if (!g.quiet) process.stderr.write(`baton: ${code} ${message}\n`);
}

/** Runs a command body, printing its result or its error by the conventions. */
export async function run(g: GlobalOptions, body: () => CommandResult | Promise<CommandResult>): Promise<void> {
  try {
    const r = await body();
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

export function reportError(g: GlobalOptions, e0: unknown): void {
  // A filesystem refusal the store did not code itself (read-only, full, not a folder) is still a refusal.
  const e = errnoError(e0) ?? e0;
  if (e instanceof BatonError) {
    if (g.json) process.stdout.write(`${JSON.stringify({ ok: false, error: e.toJSON() })}\n`);
    process.stderr.write(`baton: ${e.code} ${e.message}\n`);
    process.exitCode = 2;
    return;
  }
  const msg = e instanceof Error ? e.message : String(e);
  if (g.json) process.stdout.write(`${JSON.stringify({ ok: false, error: { code: 'INTERNAL', message: msg } })}\n`);
  process.stderr.write(`baton: ${msg.split('\n')[0]}\n`);
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
