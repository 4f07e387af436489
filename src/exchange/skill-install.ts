// baton's own skill in Claude Code's skills folder (`--aspects skill`): install, uninstall,
// status and verify, with the rules of the hook entries (hooks.md): idempotent, a backup of
// what is replaced, an earlier baton's differing file reported and not overwritten without
// --force, and a file that is not baton's never touched without --force. Source of truth:
// the file itself; baton's is the one whose frontmatter says `generated-by: baton`.
// CLI only (never on the hook path).
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { fail } from '../core/errors.ts';
import { type InstallContext, backupPath, readText, writeTextAtomic } from '../providers/install.ts';
import { lineDiff } from '../providers/settings.ts';
import type { Scope } from '../providers/types.ts';
import { BATON_SKILL_MD, checkSkillText, parseFrontmatter } from './skill.ts';

export const SKILL_ASPECT = 'skill';

/** Claude Code's skills folder: `~/.claude/skills` for the user, `.claude/skills` in a project (local shares it). */
export function skillFile(scope: Scope, ctx: InstallContext): string {
  return join(scope === 'user' ? ctx.userHome : ctx.projectRoot, '.claude', 'skills', 'baton', 'SKILL.md');
}

/** `--aspects` without the skill: what the hook install still gets (null: no hook entries at all). */
export function splitSkillAspect(list: string | undefined): { skill: boolean; hooks: string | undefined | null } {
  if (list === undefined) return { skill: false, hooks: undefined };
  const names = list.split(',').map((s) => s.trim()).filter(Boolean);
  const skill = names.includes(SKILL_ASPECT);
  const rest = names.filter((n) => n !== SKILL_ASPECT);
  return { skill, hooks: skill && rest.length === 0 ? null : rest.join(',') || list };
}

type FileState = 'absent' | 'ours' | 'outdated' | 'foreign';

function stateOf(text: string | null): FileState {
  if (text === null) return 'absent';
  if (text === BATON_SKILL_MD) return 'ours';
  return parseFrontmatter(text)?.['generated-by'] === 'baton' ? 'outdated' : 'foreign';
}

export interface SkillInstallReport {
  file: string;
  before: FileState;
  written: boolean;
  backup: string | null;
  diff?: string;
}

export function installSkill(provider: string, scope: Scope, ctx: InstallContext, opts: { dryRun?: boolean; force?: boolean } = {}): SkillInstallReport {
  if (provider !== 'claude') fail('USAGE', `the skill aspect installs into Claude Code's skills folder: use baton install claude --aspects skill`);
  const file = skillFile(scope, ctx);
  const text = readText(file);
  const before = stateOf(text);
  const report: SkillInstallReport = { file, before, written: false, backup: null };
  if (before === 'ours') return report;
  if ((before === 'outdated' || before === 'foreign') && !opts.force) {
    fail(
      'HK101',
      `${file} exists and is ${before === 'outdated' ? "an earlier baton's skill that differs" : 'not baton\'s'}; nothing changed. Replace it (a backup is kept) with: baton install claude --scope ${scope} --aspects skill --force`,
      { file, state: before },
    );
  }
  if (opts.dryRun) {
    report.diff = lineDiff(text ?? '', BATON_SKILL_MD, file);
    return report;
  }
  if (text !== null) {
    writeTextAtomic(backupPath(file), text);
    report.backup = backupPath(file);
  }
  writeTextAtomic(file, BATON_SKILL_MD);
  report.written = true;
  return report;
}

/** Removes baton's skill (only when the file is baton's) and the folder it leaves empty. */
export function uninstallSkill(scope: Scope, ctx: InstallContext, opts: { dryRun?: boolean } = {}): string | null {
  const file = skillFile(scope, ctx);
  const state = stateOf(readText(file));
  if (state !== 'ours' && state !== 'outdated') return null;
  if (opts.dryRun) return file;
  fs.unlinkSync(file);
  try {
    fs.rmdirSync(dirname(file));
  } catch {}
  return file;
}

const SKILL_SCOPES: Scope[] = ['user', 'project'];

export interface SkillWiringRow {
  row: string;
  provider: 'claude';
  aspect: typeof SKILL_ASPECT;
  state: 'wired' | 'partial' | 'absent' | 'foreign';
  scopes: Scope[];
  missing: string[];
  foreign: string[];
  trusted: null;
}

/** `baton status`'s row for the skill: wired (current), partial (an earlier baton's), foreign, absent. */
export function skillWiring(ctx: InstallContext): SkillWiringRow {
  const row: SkillWiringRow = { row: `claude:${SKILL_ASPECT}`, provider: 'claude', aspect: SKILL_ASPECT, state: 'absent', scopes: [], missing: [], foreign: [], trusted: null };
  const states = SKILL_SCOPES.map((s) => ({ scope: s, file: skillFile(s, ctx), state: stateOf(readText(skillFile(s, ctx))) }));
  for (const s of states) {
    if (s.state === 'ours') row.scopes.push(s.scope);
    if (s.state === 'outdated') row.missing.push(`${s.scope}: ${s.file} is an earlier baton's (reinstall with --force)`);
    if (s.state === 'foreign') row.foreign.push(`${s.scope}: ${s.file}`);
  }
  row.state = row.scopes.length ? 'wired' : row.missing.length ? 'partial' : row.foreign.length ? 'foreign' : 'absent';
  return row;
}

export interface SkillVerifyRow {
  provider: 'claude';
  scope: Scope;
  event: 'SKILL.md';
  ok: boolean;
  ms: number;
  budget_ms: number;
  problems: string[];
  /** Only Codex asks the user to trust a hook; a skill is read as it is. */
  trusted: null;
}

/** `baton verify`: each installed baton skill must pass `skill check` and be this baton's text. */
export function verifySkill(ctx: InstallContext): SkillVerifyRow[] {
  const rows: SkillVerifyRow[] = [];
  for (const scope of SKILL_SCOPES) {
    const file = skillFile(scope, ctx);
    const text = readText(file);
    const state = stateOf(text);
    if (state === 'absent' || state === 'foreign' || text === null) continue;
    const t0 = process.hrtime.bigint();
    const problems: string[] = [];
    try {
      checkSkillText(text, file);
    } catch (e) {
      problems.push((e as Error).message.split('\n')[0]);
    }
    if (state === 'outdated') problems.push(`an earlier baton's skill: baton install claude --scope ${scope} --aspects skill --force`);
    rows.push({ provider: 'claude', scope, event: 'SKILL.md', ok: problems.length === 0, ms: Math.round(Number(process.hrtime.bigint() - t0) / 1e6), budget_ms: 0, problems, trusted: null });
  }
  return rows;
}
