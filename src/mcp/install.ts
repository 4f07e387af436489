// `baton install PROVIDER --aspects mcp` (mcp.md, Install): baton's MCP server in an agent's
// MCP configuration, with the rules of the hook entries (hooks.md): a text edit that leaves
// every other byte as it was (uninstall gives the original bytes back), a backup beside the
// file, --dry-run, an earlier baton's differing entry reported and not replaced without
// --force. Source of truth: the configuration files; baton keeps no record. CLI only: this
// file never loads the MCP SDK.
//   claude  user: ~/.claude.json mcpServers; local: ~/.claude.json projects[<root>].mcpServers;
//           project: <root>/.mcp.json mcpServers
//   gemini  user: ~/.gemini/settings.json, project: <root>/.gemini/settings.json (mcpServers)
//   codex   user: ~/.codex/config.toml, project: <root>/.codex/config.toml ([mcp_servers.baton])
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { fail } from '../core/errors.ts';
import { type InstallContext, backupPath, readText, writeTextAtomic } from '../providers/install.ts';
import { lineDiff, removeAt, setAt, valueAt } from '../providers/settings.ts';
import type { Scope } from '../providers/types.ts';

export const MCP_ASPECT = 'mcp';
export const SERVER_NAME = 'baton';

export interface McpEntry {
  command: string;
  args: string[];
}

interface Target {
  file: string;
  /** JSON: the path of the server's object; TOML: null (the [mcp_servers.baton] table). */
  path: string[] | null;
}

const SCOPES: Record<string, Scope[]> = { claude: ['user', 'project', 'local'], gemini: ['user', 'project'], codex: ['user', 'project'] };

export function mcpScopes(provider: string): Scope[] {
  return SCOPES[provider] ?? [];
}

export function mcpTarget(provider: string, scope: Scope, ctx: InstallContext): Target {
  if (!mcpScopes(provider).includes(scope)) fail('USAGE', `${provider}'s MCP configuration has no ${scope} scope: use ${mcpScopes(provider).join(' or ')}`);
  if (provider === 'claude') {
    if (scope === 'project') return { file: join(ctx.projectRoot, '.mcp.json'), path: ['mcpServers', SERVER_NAME] };
    const file = join(ctx.userHome, '.claude.json');
    return { file, path: scope === 'local' ? ['projects', ctx.projectRoot, 'mcpServers', SERVER_NAME] : ['mcpServers', SERVER_NAME] };
  }
  if (provider === 'gemini') return { file: join(scope === 'user' ? ctx.userHome : ctx.projectRoot, '.gemini', 'settings.json'), path: ['mcpServers', SERVER_NAME] };
  return { file: join(scope === 'user' ? ctx.userHome : ctx.projectRoot, '.codex', 'config.toml'), path: null };
}

/**
 * What the configuration runs: this node and bin/baton.cjs by absolute path for a personal
 * scope (with --home when one was given); `baton mcp` from PATH in a file shared through the
 * repository (an absolute path of one machine means nothing on another).
 */
export function mcpEntry(scope: Scope, ctx: InstallContext): McpEntry {
  if (scope === 'project') return { command: 'baton', args: ['mcp'] };
  return { command: ctx.node, args: [ctx.bin, 'mcp', ...(ctx.storeHome ? ['--home', ctx.storeHome] : [])] };
}

/** Whether a configured server is some baton's `mcp` (any path, any --home). */
export function isBatonMcp(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const { command, args } = e as { command?: unknown; args?: unknown };
  const words = [command, ...(Array.isArray(args) ? args : [])].filter((w): w is string => typeof w === 'string');
  return words.some((w) => /(^|\/)baton(\.cjs)?$/.test(w)) && words.includes('mcp');
}

const sameEntry = (e: unknown, want: McpEntry): boolean => {
  const x = e as { command?: unknown; args?: unknown } | null;
  return !!x && x.command === want.command && JSON.stringify(x.args ?? []) === JSON.stringify(want.args);
};

// --- TOML (Codex): the one table, found and written as text ------------------------------

const TOML_HEADER = /^\[mcp_servers\.(?:baton|"baton")\][ \t]*(?:#.*)?$/m;

const tomlString = (s: string): string => JSON.stringify(s);

function tomlBlock(e: McpEntry): string {
  return `[mcp_servers.${SERVER_NAME}]\ncommand = ${tomlString(e.command)}\nargs = [${e.args.map(tomlString).join(', ')}]\n`;
}

/** The [mcp_servers.baton] table's span: from its header to the next table header (or the end). */
function tomlSpan(text: string): { start: number; end: number } | null {
  const m = TOML_HEADER.exec(text);
  if (!m) return null;
  const after = m.index + m[0].length;
  const next = /^[ \t]*\[/m.exec(text.slice(after));
  return { start: m.index, end: next ? after + next.index : text.length };
}

function tomlValue(text: string, file: string): unknown {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    return fail('HK102', `${file} is not TOML baton can edit safely (${(e as Error).message.split('\n')[0]}): fix it by hand, then run the command again`, { file });
  }
  return (doc.mcp_servers as Record<string, unknown> | undefined)?.[SERVER_NAME];
}

function tomlSet(text: string, e: McpEntry): string {
  const span = tomlSpan(text);
  if (span) return text.slice(0, span.start) + tomlBlock(e) + (span.end < text.length ? '\n' : '') + text.slice(span.end);
  if (text === '') return tomlBlock(e);
  return `${text}${text.endsWith('\n') ? '' : '\n'}\n${tomlBlock(e)}`;
}

/** Removes the table and the blank line install put before it (the inverse of tomlSet on a file ending in a newline). */
function tomlRemove(text: string): string {
  const span = tomlSpan(text);
  if (!span) return text;
  let start = span.start;
  let end = span.end;
  if (end === text.length && text.slice(0, start).endsWith('\n\n')) start -= 1;
  else if (end < text.length && text.slice(span.start, end).endsWith('\n\n')) end -= 1;
  return text.slice(0, start) + text.slice(end);
}

// --- the operations ---------------------------------------------------------------------

function current(t: Target, text: string | null): unknown {
  if (text === null || text.trim() === '') return undefined;
  return t.path ? valueAt(text, t.path, t.file) : tomlValue(text, t.file);
}

export type McpState = 'absent' | 'ours' | 'outdated' | 'foreign';

function stateOf(value: unknown, want: McpEntry): McpState {
  if (value === undefined) return 'absent';
  if (sameEntry(value, want)) return 'ours';
  return isBatonMcp(value) ? 'outdated' : 'foreign';
}

export interface McpInstallReport {
  provider: string;
  scope: Scope;
  file: string;
  before: McpState;
  written: boolean;
  backup: string | null;
  entry: McpEntry;
  diff?: string;
}

export function installMcp(provider: string, scope: Scope, ctx: InstallContext, opts: { dryRun?: boolean; force?: boolean } = {}): McpInstallReport {
  const t = mcpTarget(provider, scope, ctx);
  const text = readText(t.file);
  const want = mcpEntry(scope, ctx);
  const before = stateOf(current(t, text), want);
  const report: McpInstallReport = { provider, scope, file: t.file, before, written: false, backup: null, entry: want };
  if (before === 'ours') return report;
  if (before !== 'absent' && !opts.force) {
    fail(
      'HK101',
      `${t.file} already configures an MCP server named "${SERVER_NAME}" that ${before === 'outdated' ? "is an earlier baton's and differs" : "is not baton's"}; nothing changed. Replace it (a backup is kept) with: baton install ${provider} --scope ${scope} --aspects mcp --force`,
      { file: t.file, state: before },
    );
  }
  const next = t.path ? setAt(text ?? '', t.path, want, t.file) : tomlSet(text ?? '', want);
  if (opts.dryRun) {
    report.diff = lineDiff(text ?? '', next, t.file);
    return report;
  }
  if (text !== null && readText(backupPath(t.file)) === null) {
    writeTextAtomic(backupPath(t.file), text);
    report.backup = backupPath(t.file);
  }
  writeTextAtomic(t.file, next);
  report.written = true;
  return report;
}

export interface McpUninstallReport {
  provider: string;
  scope: Scope;
  file: string;
  removed: boolean;
  /** Removed because the file is back to it byte for byte. */
  backup_removed: string | null;
  /** Removed because baton created it and nothing else is in it. */
  file_removed: boolean;
  diff?: string;
}

/** Removes baton's server (only when it is some baton's) from one scope. */
export function uninstallMcp(provider: string, scope: Scope, ctx: InstallContext, opts: { dryRun?: boolean } = {}): McpUninstallReport {
  const t = mcpTarget(provider, scope, ctx);
  const text = readText(t.file);
  const report: McpUninstallReport = { provider, scope, file: t.file, removed: false, backup_removed: null, file_removed: false };
  if (text === null || !isBatonMcp(current(t, text))) return report;
  const bp = backupPath(t.file);
  const backup = readText(bp);
  // Which emptied objects above the entry to remove: those install created. The backup (the
  // file before install) tells when it is there; else every one the entry leaves empty.
  const path = t.path;
  const candidates = path ? path.map((_k, keep) => removeAt(text, path, t.file, keep)) : [tomlRemove(text)];
  const next = candidates.find((c) => c === backup) ?? candidates[0];
  report.removed = true;
  if (opts.dryRun) {
    report.diff = lineDiff(text, next, t.file);
    return report;
  }
  if (backup === null && (t.path ? /^\s*\{\s*\}\s*$/.test(next) : next.trim() === '')) {
    fs.unlinkSync(t.file);
    report.file_removed = true;
    return report;
  }
  writeTextAtomic(t.file, next);
  if (backup === next) {
    fs.unlinkSync(bp);
    report.backup_removed = bp;
  }
  return report;
}

export interface McpWiringRow {
  row: string;
  provider: string;
  aspect: typeof MCP_ASPECT;
  state: 'wired' | 'partial' | 'absent' | 'foreign';
  scopes: Scope[];
  missing: string[];
  foreign: string[];
  trusted: null;
}

/** `baton status`'s row: wired (this baton's entry in some scope), partial (an earlier baton's), foreign, absent. */
export function mcpWiring(provider: string, ctx: InstallContext): McpWiringRow {
  const row: McpWiringRow = { row: `${provider}:${MCP_ASPECT}`, provider, aspect: MCP_ASPECT, state: 'absent', scopes: [], missing: [], foreign: [], trusted: null };
  for (const scope of mcpScopes(provider)) {
    const t = mcpTarget(provider, scope, ctx);
    let state: McpState;
    try {
      state = stateOf(current(t, readText(t.file)), mcpEntry(scope, ctx));
    } catch {
      continue; // an unparsable file is doctor's and install's to report
    }
    if (state === 'ours') row.scopes.push(scope);
    if (state === 'outdated') row.missing.push(`${scope}: ${t.file} runs an earlier baton (reinstall with --force)`);
    if (state === 'foreign') row.foreign.push(`${scope}: ${t.file} has another server named "${SERVER_NAME}"`);
  }
  row.state = row.scopes.length ? 'wired' : row.missing.length ? 'partial' : row.foreign.length ? 'foreign' : 'absent';
  return row;
}

/** The configured baton servers of a provider, for `baton verify` (which spawns each). */
export function configuredMcp(provider: string, ctx: InstallContext): { scope: Scope; file: string; entry: McpEntry }[] {
  const out: { scope: Scope; file: string; entry: McpEntry }[] = [];
  for (const scope of mcpScopes(provider)) {
    const t = mcpTarget(provider, scope, ctx);
    try {
      const v = current(t, readText(t.file)) as McpEntry | undefined;
      if (v && isBatonMcp(v)) out.push({ scope, file: t.file, entry: { command: v.command, args: Array.isArray(v.args) ? v.args.map(String) : [] } });
    } catch {}
  }
  return out;
}

/** `--aspects` without mcp: what the hook install still gets (null: no hook entries at all). */
export function splitMcpAspect(list: string | undefined): { mcp: boolean; rest: string | undefined | null } {
  if (list === undefined) return { mcp: false, rest: undefined };
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const mcp = names.includes(MCP_ASPECT);
  const rest = names.filter((n) => n !== MCP_ASPECT);
  return { mcp, rest: mcp && rest.length === 0 ? null : rest.join(',') || list };
}
