// `baton index rebuild`, `baton search`, `baton project ...` (index.md). Owned by the index work.
import * as fs from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import { ITEM_KINDS, ITEM_ROLES, TRANSCRIPT_AGENTS } from '../core/transcript.ts';
import { FsStore } from '../store/store.ts';
import { isoMillis } from '../core/time.ts';
import { type SearchFilter, type SearchHit, projectList, rebuildIndex, searchSessions } from '../index/api.ts';
import { addProject, projectId, readProjects, setTrust, writeProjects } from '../index/projects.ts';
import { HIT_CLOSE, HIT_OPEN } from '../index/query.ts';
import { resolveHome } from '../store/home.ts';
import { realDir } from '../store/workspace.ts';
import { type CommandResult, type GlobalOptions, color, envelope, run, storeHome, table, colorWanted as colourWanted } from './output.ts';
import { indexIo, parseLimit, progressBar, workspaceFilter } from './session-list.ts';
import { parseWhen } from './when.ts';

export interface SearchOptions {
  all?: boolean;
  cwd?: string;
  type?: string;
  agent?: string;
  role?: string;
  kind?: string;
  file?: string;
  session?: string;
  since?: string;
  until?: string;
  limit?: string;
}

function oneOf<T extends string>(value: string | undefined, list: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(list as readonly string[]).includes(value)) fail('USAGE', `${flag} ${JSON.stringify(value)} is not one of ${list.join(', ')}`);
  return value as T;
}

/** The search filter of the flags, every one checked before anything is read. */
function searchFilter(g: GlobalOptions, o: SearchOptions, limit: number, nowMs: number): SearchFilter {
  const f: SearchFilter = { cwd: o.session !== undefined && !o.all && o.cwd === undefined ? null : workspaceFilter(o), type: o.type, limit, nowMs };
  f.agent = oneOf(o.agent, TRANSCRIPT_AGENTS, '--agent');
  f.role = oneOf(o.role, ITEM_ROLES, '--role');
  f.kind = oneOf(o.kind, ITEM_KINDS, '--kind');
  if (o.file !== undefined) {
    if (!o.file.trim() || o.file.includes('\0')) fail('USAGE', '--file is empty or holds a NUL byte');
    f.file = o.file;
    // Relative: also as the absolute path from here (each session's workspace decides), as `baton files` looks.
    if (!isAbsolute(o.file)) f.fileFrom = resolve(o.file);
  }
  if (o.since !== undefined) f.since = new Date(parseWhen(o.since, '--since', nowMs, { allowZero: true })).toISOString();
  if (o.until !== undefined) f.until = new Date(parseWhen(o.until, '--until', nowMs, { allowZero: true })).toISOString();
  if (o.session !== undefined) f.session = new FsStore(storeHome(g)).resolve(o.session);
  return f;
}

/** Who made a hit: the agent and role of an item (the tool for calls and results), else the event type. */
function hitWho(h: SearchHit): string {
  if (h.type !== 'transcript.item') return h.type;
  const what = h.kind === 'message' ? h.role : h.tool ? `${h.kind} ${h.tool}` : h.kind;
  return `${h.agent} ${what}`;
}

/** A snippet for people: matches bold on a colour terminal, else between ** marks. */
function showSnippet(s: string, colour: boolean): string {
  const flat = s.replace(/\s+/g, ' ');
  if (colour) return flat.replaceAll(HIT_OPEN, '\x1b[1;33m').replaceAll(HIT_CLOSE, '\x1b[0m');
  return flat.replaceAll(HIT_OPEN, '**').replaceAll(HIT_CLOSE, '**');
}

function projectDir(path: string): string {
  const abs = resolve(path);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    fail('USAGE', `${abs} does not exist`, { path: abs });
  }
  if (!st.isDirectory()) fail('USAGE', `${abs} is not a directory`, { path: abs });
  return realDir(abs);
}

/** `baton search`: the full command line's action and the lean entry's (search-entry.ts) alike. */
export function searchCommand(g: GlobalOptions, words: string[], opts: SearchOptions): CommandResult {
  const limit = parseLimit(opts.limit) ?? 20;
  const query = words.join(' ');
  const filter = searchFilter(g, opts, limit, Date.now());
  const cwd = filter.cwd;
  const notes: string[] = [];
  const { hits, source } = searchSessions(storeHome(g), query, filter, indexIo(g, notes));
  const json = { ok: true as const, hits: hits.map((h: SearchHit) => ({ ...h, snippet: showSnippet(h.snippet, false) })), source, ...(notes.length ? { notes } : {}) };
  const colour = colourWanted(); // output.ts's colorWanted: not a React hook
  const text = hits.length
    ? table(
        hits.map((h) => [h.session, String(h.seq), h.at.slice(0, 16).replace('T', ' '), hitWho(h), showSnippet(h.snippet, colour)]),
        ['SESSION', 'SEQ', 'AT', 'WHO', 'SNIPPET'],
        colour ? {} : { shrink: [4, 0] },
      )
    : [`no hits for ${JSON.stringify(query)}${cwd === null ? '' : ' in this workspace (--all searches every workspace)'}`];
  return { json, text };
}

export function registerIndexCommands(program: Command, globals: () => GlobalOptions): void {
  const index = program.command('index').description('the SQLite index: a rebuildable projection of the logs');
  index
    .command('rebuild')
    .description('rebuild baton.db from the session logs (progress bar on a terminal)')
    .action(() =>
      run(globals(), () => {
        const g = globals();
        const home = resolveHome(g.home);
        const io = indexIo(g);
        if (process.stderr.isTTY && !g.quiet && !g.json) io.progress = progressBar('rebuilding');
        const stats = rebuildIndex(home, io);
        const problem = stats.errors.length ? { code: 'INTERNAL', message: `${stats.errors.length} session(s) could not be indexed: ${stats.errors[0].message}` } : null;
        return {
          json: envelope({ ...stats }, problem),
          text: [
            `indexed ${stats.sessions} sessions, ${stats.events} events (${stats.texts} searchable) in ${(stats.ms / 1000).toFixed(1)}s`,
            ...(stats.corrupt ? [color.red(`${stats.corrupt} session log(s) corrupt: listed and marked; run baton session verify --all`)] : []),
            ...stats.errors.map((e) => color.red(`${e.session}: ${e.message}`)),
          ],
          exitCode: stats.errors.length ? 1 : 0,
        };
      }),
    );

  program
    .command('search')
    .description('full-text search over what happened: transcript items (what was asked, answered and run), context, prompts, titles, artifact names, published pointers; stemmed')
    .argument('<query...>', 'words to find (all of them, stemmed: retry finds retries); word* matches a prefix')
    .option('--all', 'every workspace (default: the current directory)')
    .option('--cwd <dir>', 'sessions of this workspace')
    .option('--type <type>', 'only events of this type (e.g. transcript.item, context.appended, prompt.submitted)')
    .option('--agent <agent>', `transcript items of this agent (${TRANSCRIPT_AGENTS.join(', ')})`)
    .option('--role <role>', `transcript items of this role (${ITEM_ROLES.join(', ')})`)
    .option('--kind <kind>', `transcript items of this kind (${ITEM_KINDS.join(', ')})`)
    .option('--file <path>', 'transcript items that read, wrote or edited this file (relative to the current directory or the workspace, or absolute)')
    .option('--session <id>', 'only this session (an id or an unambiguous prefix)')
    .option('--since <when>', 'at or after: a date (2026-11-30, an ISO time) or an age (7d, 12h)')
    .option('--until <when>', 'before: a date or an age')
    .option('--limit <n>', 'at most N hits', '20')
    .action((words: string[], opts: SearchOptions) => run(globals(), () => searchCommand(globals(), words, opts)));

  program
    .command('files')
    .description('the sessions and transcript items that read, wrote or edited a file, newest first')
    .argument('<path>', 'the file: relative to the current directory or the workspace, or absolute')
    .option('--all', 'every workspace (default: the current directory)')
    .option('--cwd <dir>', 'sessions of this workspace')
    .option('--agent <agent>', 'items of this agent')
    .option('--since <when>', 'at or after: a date or an age (7d)')
    .option('--limit <n>', 'at most N items', '50')
    .action((path: string, opts: SearchOptions) =>
      run(globals(), () => {
        const g = globals();
        if (!path.trim() || path.includes('\0')) fail('USAGE', 'the path is empty or holds a NUL byte');
        const limit = parseLimit(opts.limit) ?? 50;
        const words = (basename(path).match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
        if (!words) fail('USAGE', `the path ${JSON.stringify(path)} has no name to look for`);
        const home = storeHome(g);
        const notes: string[] = [];
        const base = searchFilter(g, { ...opts, file: undefined }, 10_000, Date.now());
        const absolute = resolve(path);
        const seen = new Set<string>();
        const hits: SearchHit[] = [];
        // As given (workspace-relative), and as the absolute path from here (each session's workspace decides).
        for (const file of [...new Set([path, absolute])]) {
          for (const h of searchSessions(home, words, { ...base, file }, indexIo(g, notes)).hits) {
            const key = `${h.session}:${h.seq}`;
            if (!seen.has(key)) {
              seen.add(key);
              hits.push(h);
            }
          }
        }
        hits.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : b.seq - a.seq));
        const shown = hits.slice(0, limit);
        const sessions = [...new Set(shown.map((h) => h.session))];
        const json = {
          ok: true as const,
          path,
          sessions,
          items: shown.map((h) => ({ session: h.session, seq: h.seq, at: h.at, agent: h.agent, role: h.role, kind: h.kind, tool: h.tool ?? null, files: h.files ?? [], title: h.title, workspace: h.workspace })),
          ...(notes.length ? { notes } : {}),
        };
        const text = shown.length
          ? table(
              shown.map((h) => [h.session, String(h.seq), h.at.slice(0, 16).replace('T', ' '), hitWho(h), (h.files ?? []).join(', ')]),
              ['SESSION', 'SEQ', 'AT', 'WHO', 'FILES'],
            )
          : [`no item names ${path}${base.cwd === null ? '' : ' in this workspace (--all looks in every workspace)'}`];
        return { json, text };
      }),
    );

  const project = program.command('project').description('projects: git roots (else cwds) of session workspaces, and their trust');
  project
    .command('list')
    .description('projects with session counts and trust')
    .action(() =>
      run(globals(), () => {
        const g = globals();
        const list = projectList(storeHome(g), indexIo(g));
        return {
          json: { ok: true, projects: list },
          text: list.length
            ? table(
                list.map((p) => [p.id, p.trust === 'trusted' ? color.green(p.trust) : p.trust, p.source, String(p.sessions), p.path]),
                ['ID', 'TRUST', 'SOURCE', 'SESSIONS', 'PATH'],
              )
            : ['no projects yet'],
        };
      }),
    );
  project
    .command('add')
    .description('add a project by hand (preferred over a discovered one inside it)')
    .argument('<path>', 'the project folder')
    .option('--trust', 'trust it too')
    .action((path: string, opts: { trust?: boolean }) =>
      run(globals(), () => {
        const home = resolveHome(globals().home);
        const dir = projectDir(path);
        const next = addProject(readProjects(home), dir, !!opts.trust, isoMillis(new Date()));
        writeProjects(home, next);
        const e = next.find((p) => p.path === dir);
        return { json: { ok: true, id: projectId(dir), path: dir, source: 'manual', trust: e?.trust }, text: `project ${projectId(dir)} ${dir} (${e?.trust})` };
      }),
    );
  for (const [verb, trust] of [
    ['trust', 'trusted'],
    ['untrust', 'untrusted'],
  ] as const) {
    project
      .command(verb)
      .description(verb === 'trust' ? 'let remote surfaces write sessions of this project' : 'take the trust back')
      .argument('<path>', 'the project folder')
      .action((path: string) =>
        run(globals(), () => {
          const g = globals();
          const home = resolveHome(g.home);
          const dir = projectDir(path);
          const entries = readProjects(home);
          const next = setTrust(entries, projectList(home, indexIo(g)), dir, trust, isoMillis(new Date()));
          writeProjects(home, next);
          return { json: { ok: true, id: projectId(dir), path: dir, trust }, text: `project ${projectId(dir)} ${dir}: ${trust}` };
        }),
      );
  }
}

