// Output conventions of cli.md in one place: --json (one document), exit codes 0/1/2,
// `baton: <CODE> <message>` on stderr for refusals, colour only on a TTY without NO_COLOR or TERM=dumb.
import { BatonError, errnoError } from '../core/errors.ts';
import { formatDuration } from '../core/duration.ts';
import { writeFd } from '../core/stdio.ts';
import { checkHome, resolveHome } from '../store/home.ts';
import { FsStore } from '../store/store.ts';

export interface GlobalOptions {
  home?: string;
  json?: boolean;
  quiet?: boolean;
}

/** Colour for a terminal: stdout a TTY, no NO_COLOR, not TERM=dumb. Asked only when something is coloured. */
export const colorWanted = (): boolean => !!process.stdout.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb';

/**
 * One SGR attribute around `s` when colour is on. A close inside `s` (a nested colour ending)
 * becomes `reopen`, so the outer attribute holds after it. Our own five, not picocolors: that
 * module reads process.stdout when it loads, which builds the stdout stream and loads ~20 of
 * Node's modules in every command, `session list --json` into a pipe included (~49 M
 * instructions, a quarter of such a list; docs/adr/0086).
 */
function sgr(open: string, close: string, reopen: string): (s: string) => string {
  return (s) => (colorWanted() ? open + s.replaceAll(close, reopen) + close : s);
}

export const color = {
  dim: sgr('\x1b[2m', '\x1b[22m', '\x1b[22m\x1b[2m'),
  bold: sgr('\x1b[1m', '\x1b[22m', '\x1b[22m\x1b[1m'),
  green: sgr('\x1b[32m', '\x1b[39m', '\x1b[32m'),
  yellow: sgr('\x1b[33m', '\x1b[39m', '\x1b[33m'),
  red: sgr('\x1b[31m', '\x1b[39m', '\x1b[31m'),
};

/** The store home of this command line, refused (WS011/WS012, nothing written) when baton could not use it: reads as writes. */
export function storeHome(g: GlobalOptions): string {
  const home = resolveHome(g.home);
  checkHome(home);
  return home;
}

export function openStore(g: GlobalOptions): FsStore {
  return new FsStore(storeHome(g), { contextOnAppend: true });
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
  writeFd(1, `${JSON.stringify(errorEnvelope(code, message, details))}\n`);
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

/**
 * Text for people: through the pager when it is longer than a terminal's screen, as git does
 * (`$BATON_PAGER`, else `$PAGER`, else `less -FRX`; an empty value or `cat` means none); never
 * into a pipe or a file, and never under --json.
 */
export function writeText(text: string): void {
  const out = process.stdout;
  const pager = process.env.BATON_PAGER ?? process.env.PAGER ?? 'less -FRX';
  const rows = out.isTTY ? out.rows || 24 : 0;
  if (!out.isTTY || !process.stdin.isTTY || pager.trim() === '' || pager.trim() === 'cat' || countLines(text) < rows) {
    out.write(text);
    return;
  }
  // The pager gets the terminal; a pager that cannot start falls back to writing the text.
  // Loaded here only: the lean `session list` process must not pay for child_process.
  const { spawnSync } = process.getBuiltinModule('node:child_process') as typeof import('node:child_process');
  const r = spawnSync(pager, { shell: true, input: text, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...process.env } });
  if (r.error || r.status === 127) out.write(text);
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function warn(g: GlobalOptions, code: string, message: string): void {
  if (!g.quiet) process.stderr.write(`baton: ${code} ${message}\n`);
}

/**
 * Human text as it may reach a terminal: what a command prints comes from the store, and the
 * store holds what agents and users wrote (a transcript can carry an escape that clears the
 * screen or sets the window title). Line breaks and tabs stay; every other control character,
 * and every escape that is not a colour (SGR), becomes `?`; colours go too when colour is off
 * (a pipe, NO_COLOR), so a transcript's own colour codes never reach a file.
 */
export function terminalText(s: string): string {
  // Fast path: nothing to change (most output).
  if (!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(s)) return s;
  const keepSgr = colorWanted();
  return s.replace(/\x1b\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (m) => (m.length > 1 ? (keepSgr ? m : '') : m === '\r' ? '' : '?'));
}

/** Runs a command body, printing its result or its error by the conventions. */
export async function run(g: GlobalOptions, body: () => CommandResult | Promise<CommandResult>): Promise<void> {
  try {
    const r = await body();
    // A result that reports a problem (doctor, verify) says it on stderr like a refusal.
    if (r.json && !r.json.ok) process.stderr.write(`baton: ${r.json.error.code} ${r.json.error.message}\n`);
    if (r.printed) {
      // streamed by the command itself
    } else if (g.json) writeFd(1, `${JSON.stringify(r.json)}\n`);
    else if (r.text !== undefined && !g.quiet) {
      const t = Array.isArray(r.text) ? r.text.join('\n') : r.text;
      if (t.length) writeText(terminalText(t.endsWith('\n') ? t : `${t}\n`));
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

// Display width, for tables that line up on a terminal: colour escapes (SGR) take no
// columns, combining marks and zero-width characters none, East Asian wide and fullwidth
// characters and emoji two. Control characters in cell text would move the cursor or push
// columns: a tab or line break becomes a space, any other one (and any escape that is not a
// colour) becomes `?`, as `ls` shows them.
const SGR = /\x1b\[[0-9;]*m/g;
// Made on first use: a literal with Unicode property classes is parsed when the module loads,
// ~2 M instructions of ICU set building for every command, tables or not (`session list --json`).
let ZERO_WIDTH: RegExp | undefined;
let EMOJI: RegExp | undefined;

function charWidth(cp: number, ch: string): number {
  ZERO_WIDTH ??= /[\p{Mn}\p{Me}\u200b-\u200f\u2060-\u2064\ufeff]/u;
  if (ZERO_WIDTH.test(ch)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd) ||
    (cp >= 0x1f000 && (EMOJI ??= /\p{Emoji_Presentation}/u).test(ch))
  ) {
    return 2;
  }
  return 1;
}

/** Columns `s` takes on a terminal (colour escapes excluded). */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s.replace(SGR, '')) w += charWidth(ch.codePointAt(0)!, ch);
  return w;
}

/** `s` with its control characters replaced; colour escapes kept. */
export function printable(s: string): string {
  const clean = (t: string) => t.replace(/[\t\n\r\v\f]/g, ' ').replace(/[\x00-\x1f\x7f-\x9f]/g, '?');
  let out = '';
  let last = 0;
  for (const m of s.matchAll(SGR)) {
    out += clean(s.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + clean(s.slice(last));
}

/** `s` cut to at most `width` columns, with `…` where it was cut (plain text). */
export function fitWidth(s: string, width: number): string {
  // Plain text: a colour code in it (from a transcript) would outlive the cut and the row's own colours.
  const t = printable(s).replace(SGR, '');
  if (displayWidth(t) <= width) return t;
  let out = '';
  let w = 0;
  for (const ch of t) {
    const cw = charWidth(ch.codePointAt(0)!, ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** The terminal's width when stdout is one, else no limit (a pipe gets whole cells). */
export function terminalColumns(): number {
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : Number.POSITIVE_INFINITY;
}

/** Columns a table may cut (plain text, no colour), narrowest last resort: never below this. */
const MIN_CUT = 8;

/**
 * Aligned columns for human tables, by display width. `fit.shrink` names the columns that may
 * be cut with `…` (ids, titles, paths: plain text) when the table is wider than `fit.width`
 * (default: the terminal's, none on a pipe), the widest first, none below 8 columns.
 */
export function table(rows: string[][], header?: string[], fit: { shrink?: number[]; width?: number } = {}): string[] {
  let all = (header ? [header, ...rows] : rows).map((r) => r.map(printable));
  const measure = (): number[] => {
    const w: number[] = [];
    for (const r of all) for (let i = 0; i < r.length; i++) w[i] = Math.max(w[i] ?? 0, displayWidth(r[i]));
    return w;
  };
  let widths = measure();
  const limit = fit.width ?? terminalColumns();
  const shrink = fit.shrink ?? [];
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * Math.max(0, widths.length - 1);
  if (shrink.length && total() > limit) {
    const cut = widths.slice();
    while (total() > limit) {
      const i = shrink.filter((c) => cut[c] > MIN_CUT).sort((a, b) => cut[b] - cut[a])[0];
      if (i === undefined) break;
      cut[i] = Math.max(MIN_CUT, cut[i] - Math.max(1, total() - limit));
      widths = widths.map((w, k) => (k === i ? cut[i] : w));
    }
    all = all.map((r) => r.map((c, k) => (shrink.includes(k) && displayWidth(c) > cut[k] ? fitWidth(c, cut[k]) : c)));
    widths = measure();
  }
  const pad = (c: string, i: number) => c + ' '.repeat(widths[i] - displayWidth(c));
  const out = all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : pad(c, i))).join('  ').trimEnd());
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
