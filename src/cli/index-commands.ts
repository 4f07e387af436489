// `baton index rebuild`, `baton search`, `baton project ...` (index.md). Owned by the index work.
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import { isoMillis } from '../core/time.ts';
import { type SearchHit, projectList, rebuildIndex, searchSessions } from '../index/api.ts';
import { addProject, projectId, readProjects, setTrust, writeProjects } from '../index/projects.ts';
import { HIT_CLOSE, HIT_OPEN } from '../index/query.ts';
import { resolveHome } from '../store/home.ts';
import { realDir } from '../store/workspace.ts';
import { type GlobalOptions, color, envelope, run, storeHome, table, useColor } from './output.ts';
import { indexIo, parseLimit, progressBar, workspaceFilter } from './session-list.ts';

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
    .description('full-text search over event text (context, prompts, titles, artifact names)')
    .argument('<query...>', 'words to find (all of them); word* matches a prefix')
    .option('--all', 'every workspace (default: the current directory)')
    .option('--cwd <dir>', 'sessions of this workspace')
    .option('--type <type>', 'only events of this type (e.g. context.appended, prompt.submitted)')
    .option('--limit <n>', 'at most N hits', '20')
    .action((words: string[], opts: { all?: boolean; cwd?: string; type?: string; limit?: string }) =>
      run(globals(), () => {
        const g = globals();
        const limit = parseLimit(opts.limit) ?? 20;
        const cwd = workspaceFilter(opts);
        const query = words.join(' ');
        const notes: string[] = [];
        const { hits, source } = searchSessions(storeHome(g), query, { cwd, type: opts.type, limit }, indexIo(g, notes));
        const json = { ok: true as const, hits: hits.map((h: SearchHit) => ({ ...h, snippet: showSnippet(h.snippet, false) })), source, ...(notes.length ? { notes } : {}) };
        const colour = useColor();
        const text = hits.length
          ? table(
              hits.map((h) => [h.session, String(h.seq), h.type, showSnippet(h.snippet, colour)]),
              ['SESSION', 'SEQ', 'TYPE', 'SNIPPET'],
              colour ? {} : { shrink: [3, 0] },
            )
          : [`no hits for ${JSON.stringify(query)}${cwd === null ? '' : ' in this workspace (--all searches every workspace)'}`];
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

