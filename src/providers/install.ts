// Install, uninstall and wiring status of baton's hook entries in a provider's settings
// file (hooks.md, Install/status). Source of truth: the settings files themselves; baton
// keeps no record of what it installed. An entry is baton's when its command runs
// `baton ... hook <provider>` or the repo's `.baton/hooks/<provider>` shim; it is *this*
// baton's when it is exactly the command this install would write. Writes: a backup
// beside the file, then an atomic replace keeping the file's mode. CLI only.
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fail } from '../core/errors.ts';
import { shellJoin } from '../hooks/shell.ts';
import { writeFileAtomic } from '../store/fsutil.ts';
import { resolveHome } from '../store/home.ts';
import { describeWorkspace } from '../store/workspace.ts';
import { type HookEntryRef, addGroup, lineDiff, listEntries, removeEntries, replaceCommand, valueAt } from './settings.ts';
import { codexHookStates, codexTrusts } from './codex-trust.ts';
import { ownedEntries, renderOwned } from './owned-file.ts';
import { shimText } from './shim.ts';
import { ASPECTS, ASPECT_EVENTS, type Aspect, HOOK_KINDS, type HookKind, type ProviderAdapter, type Scope } from './types.ts';

export interface InstallContext {
  /** The user's home (settings of user scope). */
  userHome: string;
  /** The project root (git root of the cwd, else the cwd). */
  projectRoot: string;
  /** Absolute node and bin/baton.cjs, for user-scope commands. */
  node: string;
  bin: string;
  /** The store when it is not the default one (--home or $BATON_HOME): user- and local-scope commands carry it. */
  storeHome?: string;
}

export function defaultContext(cwd: string, node: string, bin: string, storeHome?: string): InstallContext {
  const ws = describeWorkspace(cwd);
  return { userHome: process.env.HOME || homedir(), projectRoot: ws.git_root ?? ws.cwd, node, bin, storeHome };
}

export function settingsPath(adapter: ProviderAdapter, scope: Scope, ctx: InstallContext): string {
  const s = adapter.settings[scope];
  if (!s) {
    fail('USAGE', `${adapter.name} has no ${scope} scope: use ${Object.keys(adapter.settings).join(' or ')}`, { scopes: Object.keys(adapter.settings) });
  }
  return join(s.base === 'home' ? ctx.userHome : ctx.projectRoot, s.path);
}

export function shimPath(adapter: ProviderAdapter, ctx: InstallContext): string {
  return join(ctx.projectRoot, '.baton', 'hooks', adapter.name);
}

const allAspects = (a: readonly Aspect[]): boolean => ASPECTS.every((x) => a.includes(x));

/**
 * The command an entry of this scope runs (the aspects flag only when not all three). An
 * owned hooks file's entry names its event first (Copilot's payloads do not; baton's plugin names it in the payload).
 */
export function commandFor(adapter: ProviderAdapter, scope: Scope, aspects: readonly Aspect[], ctx: InstallContext, event?: string): string {
  if (adapter.ownedFile === 'hooks-json' && event) return `BATON_HOOK_EVENT=${event} ${commandFor(adapter, scope, aspects, ctx)}`;
  // The store goes in at user and local scope (this machine's files); a project-scope entry is
  // committed and names no machine's path: its agent needs BATON_HOME for a store not the default.
  const home = ctx.storeHome && scope !== 'project' ? ['--home', ctx.storeHome] : [];
  const base = scope === 'user' ? shellJoin([ctx.node, ctx.bin, 'hook', adapter.name, ...home]) : home.length ? `${adapter.shimCommand} ${shellJoin(home)}` : adapter.shimCommand;
  return allAspects(aspects) ? base : `${base} --aspects ${ASPECTS.filter((a) => aspects.includes(a)).join(',')}`;
}

/** Whether a command is any baton's hook entry for this provider. */
export function isBatonCommand(command: string, provider: string): boolean {
  if (command.includes(`.baton/hooks/${provider}`)) return true;
  return new RegExp(`(^|[\\s'"/])baton(\\.cjs)?['"]?(\\s+--home\\s+\\S+)?\\s+hook\\s+['"]?${provider}\\b`).test(command);
}

/** The aspects an installed command runs (all three without the flag). */
export function aspectsOf(command: string): Aspect[] {
  const m = /--aspects[= ]+['"]?([a-z,]+)/.exec(command);
  if (!m) return [...ASPECTS];
  const names = m[1].split(',');
  return ASPECTS.filter((a) => names.includes(a));
}

const stripAspects = (command: string): string => command.replace(/\s+--aspects[= ]+['"]?[a-z,]+['"]?/, '');

/** The provider events the chosen aspects need (only those the provider has). */
export function eventsFor(adapter: ProviderAdapter, aspects: readonly Aspect[]): { kind: HookKind; event: string }[] {
  const kinds = new Set<HookKind>();
  for (const a of aspects) for (const k of ASPECT_EVENTS[a]) kinds.add(k);
  const out: { kind: HookKind; event: string }[] = [];
  for (const k of HOOK_KINDS) {
    const ev = adapter.events[k];
    if (kinds.has(k) && ev) out.push({ kind: k, event: ev });
  }
  return out;
}

function groupFor(adapter: ProviderAdapter, command: string): Record<string, unknown> {
  return { hooks: [{ type: 'command', ...(adapter.entryExtras ?? {}), command, timeout: adapter.timeoutValue }] };
}

export interface InstallReport {
  provider: string;
  scope: Scope;
  file: string;
  changed: boolean;
  added: string[];
  kept: string[];
  replaced: string[];
  /** Earlier baton entries that differ: reported, not overwritten (without --force). */
  differing: { event: string; command: string; expected: string }[];
  shim: { path: string; written: boolean } | null;
  backup: string | null;
  diff?: string;
  note?: string;
}

export function readText(path: string): string | null {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Atomic replace in the same folder, keeping the file's mode (0644 for a new file). */
export function writeTextAtomic(path: string, text: string, mode?: number): void {
  try {
    path = fs.realpathSync(path); // a settings file symlinked from a dotfiles repo stays a symlink
  } catch {}
  let keep = mode ?? 0o644;
  try {
    keep = mode ?? fs.statSync(path).mode & 0o777;
  } catch {}
  fs.mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, text, { durable: true, mode: keep });
}

export const backupPath = (file: string): string => `${file}.baton-backup`;

export function install(
  adapter: ProviderAdapter,
  scope: Scope,
  aspects: readonly Aspect[],
  ctx: InstallContext,
  opts: { dryRun?: boolean; force?: boolean } = {},
): InstallReport {
  if (adapter.ownedFile) return installOwned(adapter, scope, aspects, ctx, opts);
  const file = settingsPath(adapter, scope, ctx);
  const before = readText(file);
  let text = before ?? '';
  const command = commandFor(adapter, scope, aspects, ctx);
  const report: InstallReport = { provider: adapter.name, scope, file, changed: false, added: [], kept: [], replaced: [], differing: [], shim: null, backup: null };
  for (const { event } of eventsFor(adapter, aspects)) {
    const ours: HookEntryRef[] = listEntries(text, file).filter((e) => e.event === event && isBatonCommand(e.command, adapter.name));
    if (ours.some((e) => e.command === command)) {
      report.kept.push(event);
      continue;
    }
    if (ours.length > 0) {
      if (opts.force) {
        text = replaceCommand(text, ours[0], command);
        report.replaced.push(event);
      } else {
        for (const e of ours) report.differing.push({ event, command: e.command, expected: command });
      }
      continue;
    }
    text = addGroup(text, event, groupFor(adapter, command), file);
    report.added.push(event);
  }
  report.changed = text !== (before ?? '');
  if (scope !== 'user') {
    const sp = shimPath(adapter, ctx);
    const want = shimText(adapter.name);
    report.shim = { path: sp, written: readText(sp) !== want };
    if (report.shim.written && !opts.dryRun) {
      writeTextAtomic(sp, want, 0o755);
    }
  }
  if (opts.dryRun) {
    report.diff = report.changed ? lineDiff(before ?? '', text, file) : '';
  } else if (report.changed) {
    // The backup holds the file as it was before baton touched it: an earlier backup is kept
    // while the file still carries baton entries (a --force reinstall must not replace it).
    if (before !== null) {
      const hasOurs = listEntries(before, file).some((e) => isBatonCommand(e.command, adapter.name));
      if (!hasOurs || readText(backupPath(file)) === null) writeTextAtomic(backupPath(file), before);
      report.backup = backupPath(file);
    }
    writeTextAtomic(file, text);
  }
  report.note = adapter.installNote?.(ctx.storeHome ?? resolveHome(), scope);
  return report;
}

export interface UninstallReport {
  provider: string;
  scope: Scope;
  file: string;
  removed: number;
  /** A backup left beside the file (the state before install, when the restore differs from it). */
  backup: string | null;
  /** The backup install made, removed because the restored file is byte-identical to it. */
  backup_removed: string | null;
  /** The settings file, removed because baton created it (no backup) and nothing else is in it. */
  file_removed: boolean;
  /** The shim, removed when no project or local entry calls it any more. */
  shim_removed: string | null;
  diff?: string;
}

/** Removes `dir` and its parents up to (not including) `stop` while they are empty. */
function removeEmptyDirs(dir: string, stop: string): void {
  for (let d = dir; d.startsWith(`${stop}/`); d = dirname(d)) {
    try {
      fs.rmdirSync(d);
    } catch {
      return; // not empty: someone else's files live there
    }
  }
}

/** Removes `.baton/hooks/<provider>` (and the folders it leaves empty) once nothing calls it. */
function removeUnusedShim(adapter: ProviderAdapter, ctx: InstallContext): string | null {
  const sp = shimPath(adapter, ctx);
  if (!fs.existsSync(sp)) return null;
  for (const scope of Object.keys(adapter.settings) as Scope[]) {
    if (adapter.settings[scope]?.base !== 'project') continue;
    const text = readText(settingsPath(adapter, scope, ctx));
    if (text?.includes(`.baton/hooks/${adapter.name}`)) return null;
  }
  fs.unlinkSync(sp);
  removeEmptyDirs(dirname(sp), ctx.projectRoot);
  return sp;
}

/** What removing every entry leaves of a settings file baton created. */
const EMPTY_SETTINGS = /^\s*\{\s*\}\s*$/;

/** Whether `text` (a backup) had a `hooks` object; false for one baton cannot parse. */
function hadHooksObject(text: string, file: string): boolean {
  try {
    const v = valueAt(text, ['hooks'], file);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/**
 * Removes baton's entries and restores the state before install: a file baton created (no
 * backup, nothing else left in it) is removed, with the project folders it leaves empty; a
 * backup install made is removed when the restored file is byte-identical to it, and kept
 * (never overwritten) when the user changed the file since.
 */
export function uninstall(adapter: ProviderAdapter, scope: Scope, ctx: InstallContext, opts: { dryRun?: boolean } = {}): UninstallReport {
  if (adapter.ownedFile) return uninstallOwned(adapter, scope, ctx, opts);
  const file = settingsPath(adapter, scope, ctx);
  const before = readText(file);
  const report: UninstallReport = { provider: adapter.name, scope, file, removed: 0, backup: null, backup_removed: null, file_removed: false, shim_removed: null };
  if (before !== null) {
    const bp = backupPath(file);
    const backup = readText(bp);
    // The backup is the file before install: a `hooks` object it had (even empty) stays.
    const { text, removed } = removeEntries(before, (c) => isBatonCommand(c, adapter.name), file, { keepHooks: backup !== null && hadHooksObject(backup, file) });
    report.removed = removed;
    if (text !== before) {
      if (opts.dryRun) report.diff = lineDiff(before, text, file);
      else if (backup === null && EMPTY_SETTINGS.test(text)) {
        fs.unlinkSync(file);
        report.file_removed = true;
        if (adapter.settings[scope]?.base === 'project') removeEmptyDirs(dirname(file), ctx.projectRoot);
      } else {
        if (backup === null) writeTextAtomic(bp, before);
        writeTextAtomic(file, text);
        if (backup === text) {
          fs.unlinkSync(bp);
          report.backup_removed = bp;
        } else report.backup = bp;
      }
    }
  }
  if (scope !== 'user' && !opts.dryRun) report.shim_removed = removeUnusedShim(adapter, ctx);
  return report;
}

export type WiringState = 'wired' | 'partial' | 'absent' | 'foreign' | 'unsupported';

export interface WiringRow {
  row: string;
  provider: string;
  aspect: Aspect;
  state: WiringState;
  scopes: Scope[];
  missing: string[];
  foreign: string[];
  /** Codex only: whether Codex trusts every baton entry of the row (it skips untrusted hooks without a word); null elsewhere. */
  trusted: boolean | null;
}

/** One row per aspect: `claude` (prompt), `claude:session`, `claude:pointer`. */
export function rowName(provider: string, aspect: Aspect): string {
  return aspect === 'prompt' ? provider : `${provider}:${aspect}`;
}

export function wiring(adapter: ProviderAdapter, ctx: InstallContext): WiringRow[] {
  const found: { scope: Scope; file: string; entry: HookEntryRef; ours: boolean }[] = [];
  for (const { scope, file, entries } of entriesByScope(adapter, ctx)) {
    for (const e of entries) {
      if (!isBatonCommand(e.command, adapter.name)) continue;
      found.push({ scope, file, entry: e, ours: stripAspects(e.command) === stripAspects(commandFor(adapter, scope, ASPECTS, ctx, e.event)) });
    }
  }
  const trust = adapter.name === 'codex' ? codexHookStates(ctx.userHome) : null;
  const rows: WiringRow[] = [];
  for (const aspect of ['prompt', 'session', 'pointer', 'transcript'] as Aspect[]) {
    const kinds = ASPECT_EVENTS[aspect];
    const supported = kinds.filter((k) => adapter.events[k]);
    const row: WiringRow = { row: rowName(adapter.name, aspect), provider: adapter.name, aspect, state: 'absent', scopes: [], missing: [], foreign: [], trusted: null };
    let untrusted = 0;
    if (supported.length === 0) {
      row.state = 'unsupported';
      rows.push(row);
      continue;
    }
    let wired = 0;
    for (const k of kinds) {
      const event = adapter.events[k];
      if (!event) {
        row.missing.push(`${k} (${adapter.name} has no such event)`);
        continue;
      }
      const hits = found.filter((f) => f.entry.event === event && aspectsOf(f.entry.command).includes(aspect));
      const ours = hits.filter((h) => h.ours);
      if (ours.length) {
        wired++;
        for (const h of ours) if (!row.scopes.includes(h.scope)) row.scopes.push(h.scope);
        if (trust) untrusted += ours.filter((h) => !codexTrusts(trust, h.file, h.entry.event, h.entry.group, h.entry.hook)).length;
      } else {
        row.missing.push(event);
        for (const h of hits) row.foreign.push(`${h.scope} ${event}: ${h.entry.command}`);
      }
    }
    if (trust && wired > 0) row.trusted = untrusted === 0;
    // An event the agent has none of (Claude Code's turn end) is not held against the aspect.
    if (wired === supported.length) row.state = 'wired';
    else if (wired > 0) row.state = 'partial';
    else if (row.foreign.length) row.state = 'foreign';
    else row.state = 'absent';
    rows.push(row);
  }
  return rows;
}

/** The hook entries of each scope's settings file that exists and parses. */
function entriesByScope(adapter: ProviderAdapter, ctx: InstallContext): { scope: Scope; file: string; entries: HookEntryRef[] }[] {
  const out: { scope: Scope; file: string; entries: HookEntryRef[] }[] = [];
  for (const scope of Object.keys(adapter.settings) as Scope[]) {
    const file = settingsPath(adapter, scope, ctx);
    const text = readText(file);
    if (text === null) continue;
    try {
      out.push({ scope, file, entries: adapter.ownedFile ? ownedEntries(adapter, text, file) : listEntries(text, file) });
    } catch {
      // An unparsable file is reported by doctor and install, not here.
    }
  }
  return out;
}

/** Every baton entry of a provider across its scopes (verify runs each of them). */
export function batonEntries(adapter: ProviderAdapter, ctx: InstallContext): { scope: Scope; file: string; entry: HookEntryRef; kind: HookKind; timeout?: number }[] {
  const out: { scope: Scope; file: string; entry: HookEntryRef; kind: HookKind }[] = [];
  for (const { scope, file, entries } of entriesByScope(adapter, ctx)) {
    for (const e of entries) {
      if (!isBatonCommand(e.command, adapter.name)) continue;
      const kind = (Object.keys(adapter.events) as HookKind[]).find((k) => adapter.events[k] === e.event);
      if (kind) out.push({ scope, file, entry: e, kind });
    }
  }
  return out;
}

/**
 * install for a provider whose hooks file baton owns whole (Copilot's `baton.json`, the opencode and Kilo plugin `baton.js`): entries
 * kept, added or (--force) replaced per event as in a settings file; the file is rewritten
 * whole, so no backup (nothing in it is the user's).
 */
function installOwned(adapter: ProviderAdapter, scope: Scope, aspects: readonly Aspect[], ctx: InstallContext, opts: { dryRun?: boolean; force?: boolean }): InstallReport {
  const file = settingsPath(adapter, scope, ctx);
  const before = readText(file);
  const entries = before === null ? [] : ownedEntries(adapter, before, file).map(({ event, command }) => ({ event, command }));
  const report: InstallReport = { provider: adapter.name, scope, file, changed: false, added: [], kept: [], replaced: [], differing: [], shim: null, backup: null };
  for (const { event } of eventsFor(adapter, aspects)) {
    const command = commandFor(adapter, scope, aspects, ctx, event);
    const ours = entries.filter((e) => e.event === event && isBatonCommand(e.command, adapter.name));
    if (ours.some((e) => e.command === command)) report.kept.push(event);
    else if (ours.length && !opts.force) for (const e of ours) report.differing.push({ event, command: e.command, expected: command });
    else {
      if (ours.length) {
        ours[0].command = command;
        report.replaced.push(event);
      } else {
        entries.push({ event, command });
        report.added.push(event);
      }
    }
  }
  const text = renderOwned(adapter, entries);
  report.changed = text !== before;
  if (scope !== 'user') {
    const sp = shimPath(adapter, ctx);
    const want = shimText(adapter.name);
    report.shim = { path: sp, written: readText(sp) !== want };
    if (report.shim.written && !opts.dryRun) writeTextAtomic(sp, want, 0o755);
  }
  if (opts.dryRun) report.diff = report.changed ? lineDiff(before ?? '', text, file) : '';
  else if (report.changed) writeTextAtomic(file, text);
  report.note = adapter.installNote?.(ctx.storeHome ?? resolveHome(), scope);
  return report;
}

/** uninstall for an owned hooks file: baton's entries go; a file left with none is removed, with the folders it leaves empty. */
function uninstallOwned(adapter: ProviderAdapter, scope: Scope, ctx: InstallContext, opts: { dryRun?: boolean }): UninstallReport {
  const file = settingsPath(adapter, scope, ctx);
  const before = readText(file);
  const report: UninstallReport = { provider: adapter.name, scope, file, removed: 0, backup: null, backup_removed: null, file_removed: false, shim_removed: null };
  if (before !== null) {
    const entries = ownedEntries(adapter, before, file);
    const rest = entries.filter((e) => !isBatonCommand(e.command, adapter.name));
    report.removed = entries.length - rest.length;
    if (report.removed > 0) {
      const text = rest.length ? renderOwned(adapter, rest) : '';
      if (opts.dryRun) report.diff = lineDiff(before, text, file);
      else if (rest.length) writeTextAtomic(file, text);
      else {
        fs.unlinkSync(file);
        report.file_removed = true;
        removeEmptyDirs(dirname(file), adapter.settings[scope]?.base === 'project' ? ctx.projectRoot : ctx.userHome);
      }
    }
  }
  if (scope !== 'user' && !opts.dryRun) report.shim_removed = removeUnusedShim(adapter, ctx);
  return report;
}
