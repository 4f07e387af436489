// Sharing by project (`team share --project PATH`): the rule "every session whose workspace is
// in PATH is shared", kept in <home>/team.json beside the connection, applied at once and
// then at every sync pass to the sessions created since. Source of truth: the rules in
// team.json (written by `team share|unshare --project` and by `team unshare ID`, which records
// an exception); a session's own marker says whether it is shared. What a crash leaves: the
// old team.json or the new one; a rule applied halfway is finished by the next sync.
import * as fs from 'node:fs';
import { sep } from 'node:path';
import { fail } from '../core/errors.ts';
import { isoMillis } from '../core/time.ts';
import { readManifest } from '../store/projections.ts';
import { readMarker } from '../store/replica.ts';
import type { FsStore } from '../store/store.ts';
import { type TeamConfig, readConfig, writeConfig } from './config.ts';

export interface ProjectRule {
  /** The project's folder, a real absolute path on this machine (never sent to the database). */
  path: string;
  added_at: string;
  /** Sessions of the project unshared since the rule was recorded: never shared again by it. */
  except: string[];
}

/** PATH as a rule keeps it: an existing folder's real path (USAGE otherwise, before anything is written). */
export function projectPath(path: string | undefined): string {
  if (!path) fail('USAGE', '--project needs a folder');
  let real: string;
  try {
    real = fs.realpathSync(path);
  } catch {
    fail('USAGE', `--project ${path} does not exist`, { path });
  }
  if (!fs.statSync(real).isDirectory()) fail('USAGE', `--project ${path} is not a folder`, { path });
  return real;
}

const within = (dir: string | null | undefined, root: string): boolean => !!dir && (dir === root || dir.startsWith(root.endsWith(sep) ? root : root + sep));

/** The session's workspace (from its manifest, rebuilt when missing) lies in the project. */
function inProject(store: FsStore, id: string, root: string): boolean {
  let ws = readManifest(store.dir(id))?.workspace;
  if (ws === undefined) {
    try {
      ws = store.refreshProjections(id).workspace;
    } catch {
      return false;
    }
  }
  return within(ws?.git_root, root) || within(ws?.cwd, root);
}

/** Local sessions of the project that are not shared (no marker). */
export function unsharedSessionsOf(store: FsStore, root: string): string[] {
  return store.ids().filter((id) => !readMarker(store.dir(id)) && inProject(store, id, root));
}

/** Records the rule (idempotent: a rule already there is kept, its exceptions cleared: the project is shared whole again). */
export function addRule(home: string, cfg: TeamConfig, root: string, now: Date): ProjectRule {
  const rules = (cfg.projects ?? []).filter((r) => r.path !== root);
  const rule: ProjectRule = { path: root, added_at: isoMillis(now), except: [] };
  writeConfig(home, { ...cfg, projects: [...rules, rule] });
  return rule;
}

/** Forgets the rule; false when there was none. */
export function removeRule(home: string, cfg: TeamConfig, root: string): boolean {
  const rules = cfg.projects ?? [];
  if (!rules.some((r) => r.path === root)) return false;
  writeConfig(home, { ...cfg, projects: rules.filter((r) => r.path !== root) });
  return true;
}

/** A session that stops being shared is never shared again by a project rule (the rule would undo the unshare). */
export function exceptFromRules(store: FsStore, id: string): void {
  const cfg = readConfig(store.home);
  if (!cfg?.projects?.length) return;
  let changed = false;
  const projects = cfg.projects.map((r) => {
    if (r.except.includes(id) || !inProject(store, id, r.path)) return r;
    changed = true;
    return { ...r, except: [...r.except, id] };
  });
  if (changed) writeConfig(store.home, { ...cfg, projects });
}

// Sessions already looked at and found outside every rule: a workspace never changes, so
// they are not read again by this process (sync --watch runs a pass every few hundred ms).
const outside = new Map<string, Set<string>>();

/** The sessions the rules say to share now: unshared, in a rule's project, not excepted. */
export function dueByRules(store: FsStore, cfg: TeamConfig): string[] {
  const rules = cfg.projects ?? [];
  if (rules.length === 0) return [];
  const key = `${store.home}\0${rules.map((r) => `${r.path}\0${r.except.join(',')}`).join('\0')}`;
  let seen = outside.get(key);
  if (!seen) {
    seen = new Set();
    outside.clear();
    outside.set(key, seen);
  }
  const due: string[] = [];
  for (const id of store.ids()) {
    if (seen.has(id) || readMarker(store.dir(id))) continue;
    const rule = rules.find((r) => inProject(store, id, r.path));
    if (rule && !rule.except.includes(id)) due.push(id);
    else seen.add(id);
  }
  return due;
}
