// Projects (index.md, seed 002): each workspace's git root (else its cwd) is a discovered
// project with a stable id (a hash of its real path), untrusted until trusted. Source of
// truth for what a person decided — manual projects and trust — is `<home>/projects.json`
// (not the index: deleting baton.db must not forget a trust decision). Who writes: the
// `project` commands, atomically. A crash leaves the old file or the new one.
import * as fs from 'node:fs';
import { join, sep } from 'node:path';
import { fail } from '../core/errors.ts';
import { sha256Hex } from '../core/hash.ts';
import { writeFileAtomic } from '../store/fsutil.ts';
import { claimHome } from '../store/home.ts';

export const PROJECTS_FILE = 'projects.json';
export type Trust = 'trusted' | 'untrusted';

export interface ProjectEntry {
  path: string;
  manual: boolean;
  trust: Trust;
  added_at: string;
}

export interface Project {
  id: string;
  path: string;
  source: 'manual' | 'discovered';
  trust: Trust;
  sessions: number;
}

export function projectId(realPath: string): string {
  return sha256Hex(realPath).slice(0, 16);
}

export function readProjects(home: string): ProjectEntry[] {
  try {
    const v = JSON.parse(fs.readFileSync(join(home, PROJECTS_FILE), 'utf8')) as { projects?: ProjectEntry[] };
    return Array.isArray(v.projects) ? v.projects.filter((p) => p && typeof p.path === 'string') : [];
  } catch {
    return [];
  }
}

export function writeProjects(home: string, list: ProjectEntry[]): void {
  claimHome(home);
  const sorted = [...list].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  writeFileAtomic(join(home, PROJECTS_FILE), `${JSON.stringify({ version: 1, projects: sorted }, null, 2)}\n`, { durable: true });
}

const within = (dir: string, root: string): boolean => dir === root || dir.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * The project a workspace belongs to: the deepest manual project containing its cwd (a
 * manual project is preferred over a discovered one, deeper or not), else its git root,
 * else its cwd.
 */
export function projectPathFor(entries: ProjectEntry[], cwd: string, gitRoot: string | null): { path: string; source: 'manual' | 'discovered' } {
  let best: string | null = null;
  for (const e of entries) if (e.manual && within(cwd, e.path) && (best === null || e.path.length > best.length)) best = e.path;
  if (best !== null) return { path: best, source: 'manual' };
  return { path: gitRoot ?? cwd, source: 'discovered' };
}

/** Projects with session counts, from the workspaces the index knows and projects.json. */
export function listProjects(entries: ProjectEntry[], workspaces: { cwd: string; git_root: string | null; n: number }[]): Project[] {
  const byPath = new Map<string, Project>();
  const trustOf = (path: string): Trust => entries.find((e) => e.path === path)?.trust ?? 'untrusted';
  for (const e of entries) {
    if (e.manual) byPath.set(e.path, { id: projectId(e.path), path: e.path, source: 'manual', trust: e.trust, sessions: 0 });
  }
  for (const w of workspaces) {
    const p = projectPathFor(entries, w.cwd, w.git_root);
    let proj = byPath.get(p.path);
    if (!proj) {
      proj = { id: projectId(p.path), path: p.path, source: p.source, trust: trustOf(p.path), sessions: 0 };
      byPath.set(p.path, proj);
    }
    proj.sessions += w.n;
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `project add PATH [--trust]`: a manual project; idempotent. */
export function addProject(entries: ProjectEntry[], path: string, trust: boolean, nowIso: string): ProjectEntry[] {
  const cur = entries.find((e) => e.path === path);
  const others = entries.filter((e) => e.path !== path);
  return [...others, { path, manual: true, trust: trust ? 'trusted' : (cur?.trust ?? 'untrusted'), added_at: cur?.added_at ?? nowIso }];
}

/** `project trust|untrust PATH`: the path must be a known project (manual or discovered). */
export function setTrust(entries: ProjectEntry[], known: Project[], path: string, trust: Trust, nowIso: string): ProjectEntry[] {
  const cur = entries.find((e) => e.path === path);
  if (!cur && !known.some((p) => p.path === path)) {
    fail('USAGE', `${path} is not a project: no session was started there; add it with baton project add ${JSON.stringify(path)}`, { path });
  }
  const others = entries.filter((e) => e.path !== path);
  return [...others, { path, manual: cur?.manual ?? false, trust, added_at: cur?.added_at ?? nowIso }];
}
