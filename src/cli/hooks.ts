// `baton hook`, `install`, `uninstall`, `status`, `verify`, `doctor`, `episode`, `demo`
// (hooks.md): argument parsing and output only; the rules live in src/hooks, src/commands and src/providers.
import { serverStatus } from '../server/auth.ts';
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import { type SkillInstallReport, installSkill, skillWiring, splitSkillAspect, uninstallSkill, verifySkill } from '../exchange/skill-install.ts';
import { isoMillis } from '../core/time.ts';
import { type McpInstallReport, installMcp, mcpScopes, mcpWiring, splitMcpAspect, uninstallMcp } from '../mcp/install.ts';
import { verifyMcp } from '../mcp/verify.ts';
import { parseAspects } from '../hooks/dispatch.ts';
import { demoText, runDemo } from '../commands/demo.ts';
import { doctor } from '../commands/doctor.ts';
import { teamHealthOf } from '../ops/team.ts';
import { appendClosure, writeFrozenContext } from '../hooks/contexts.ts';
import { closeEpisode, loadEpisodes, openEpisode } from '../hooks/episodes.ts';
import { readLastRun } from '../hooks/lastrun.ts';
import { batonBinPath, hookMain } from '../hooks/main.ts';
import { transcriptAspect } from '../hooks/transcript.ts';
import { verifyProvider } from '../commands/verify.ts';
import { PROVIDERS, PROVIDER_NAMES, findProvider, providerOf } from '../providers/index.ts';
import { CODEX_TRUST_HINT } from '../providers/codex-trust.ts';
import { type InstallContext, type InstallReport, defaultContext, install, uninstall, wiring } from '../providers/install.ts';
import { type Scope, outcomeOf } from '../providers/types.ts';
import { resolveHome } from '../store/home.ts';
import { pointerSummary } from '../store/projections.ts';
import { cliInstanceId, cliWriter } from '../store/store.ts';
import { type GlobalOptions, color, envelope, openStore, relativeTime, run, storeHome, table } from './output.ts';
import { agentRows, wiringLine } from './wiring-table.ts';

const SCOPES: Scope[] = ['user', 'project', 'local'];


/**
 * The install context; the store home goes into the entries (`--home DIR`) whenever it is not
 * the default one — given by --home or by $BATON_HOME — since the agent that runs them may
 * not inherit baton's environment.
 */
function ctxFor(g: GlobalOptions): InstallContext {
  const home = resolveHome(g.home);
  const { BATON_HOME: _ours, ...agentEnv } = process.env;
  return defaultContext(process.cwd(), process.execPath, batonBinPath(), home === resolveHome(undefined, agentEnv) ? undefined : home);
}

function scopeOf(s: string | undefined): Scope {
  const scope = (s ?? 'user') as Scope;
  if (!SCOPES.includes(scope)) fail('USAGE', `unknown scope ${JSON.stringify(s)}: use user, project or local`);
  return scope;
}

function aspectsOption(list: string | undefined) {
  const { aspects, unknown } = parseAspects(list);
  if (unknown.length) fail('USAGE', `unknown aspect(s) ${unknown.join(', ')}: use session, prompt, pointer`);
  if (aspects.length === 0) fail('USAGE', '--aspects names no aspect: use session, prompt, pointer');
  return aspects;
}

function skillText(r: SkillInstallReport | undefined, dryRun: boolean): string[] {
  if (!r) return [];
  if (!r.written && !r.diff) return [`claude skill: ${r.file} (up to date)`];
  return [`claude skill: ${r.file} ${dryRun ? '(would write)' : '(written)'}${r.backup ? `, backup ${r.backup}` : ''}`, ...(dryRun && r.diff ? [r.diff] : [])];
}

function mcpText(r: McpInstallReport | undefined, dryRun: boolean): string[] {
  if (!r) return [];
  if (!r.written && !r.diff) return [`${r.provider} mcp (${r.scope} scope): ${r.file} (already configured)`];
  return [`${r.provider} mcp (${r.scope} scope): ${r.file} ${dryRun ? '(would add the baton server)' : '(added the baton server)'}${r.backup ? `, backup ${r.backup}` : ''}`, ...(dryRun && r.diff ? [r.diff] : [])];
}

function installText(r: InstallReport, dryRun: boolean): string[] {
  const out = [`${r.provider} (${r.scope} scope): ${r.file}`];
  if (r.added.length) out.push(`  ${dryRun ? 'would add' : 'added'}: ${r.added.join(', ')}`);
  if (r.replaced.length) out.push(`  ${dryRun ? 'would replace' : 'replaced'} an earlier baton entry: ${r.replaced.join(', ')}`);
  if (r.kept.length) out.push(`  already wired: ${r.kept.join(', ')}`);
  if (r.shim) out.push(`  shim: ${r.shim.path} ${r.shim.written ? (dryRun ? '(would write)' : '(written)') : '(up to date)'}`);
  if (r.backup) out.push(`  backup: ${r.backup}`);
  if (!r.changed && !r.shim?.written) out.push('  nothing to change');
  if (dryRun && r.diff) out.push(r.diff);
  if (r.note) out.push(r.note);
  return out;
}

export function registerHookCommands(program: Command, globals: () => GlobalOptions): void {
  program
    .command('hook')
    .description('run the hook for a provider (what installed entries call; payload on stdin)')
    .argument('<provider>', PROVIDER_NAMES.join(' | '))
    .option('--aspects <list>', 'aspects to run: session,prompt,pointer,transcript (default all)')
    .action((provider: string, o) => {
      hookMain({ provider, aspects: o.aspects, home: globals().home }, () => transcriptAspect);
    });

  program
    .command('install')
    .description("add baton's hook entries to a provider's settings file")
    .argument('<provider>', PROVIDER_NAMES.join(' | '))
    .option('--scope <scope>', 'user | project | local', 'user')
    .option('--aspects <list>', 'aspects to run: session,prompt,pointer,transcript (default all); skill (claude) installs baton\'s SKILL.md; mcp adds baton\'s MCP server')
    .option('--dry-run', 'print the diff, change nothing')
    .option('--force', 'replace an earlier baton entry that differs')
    .action((name: string, o) =>
      run(globals(), () => {
        const adapter = providerOf(name);
        const scope = scopeOf(o.scope);
        const ctx = ctxFor(globals());
        const m = splitMcpAspect(o.aspects);
        // The MCP configuration is checked (HK101) before anything is written, like the skill.
        if (m.mcp) installMcp(adapter.name, scope, ctx, { dryRun: true, force: !!o.force });
        const mcp = () => (m.mcp ? { mcp: installMcp(adapter.name, scope, ctx, { dryRun: !!o.dryRun, force: !!o.force }) } : {});
        if (m.rest === null) {
          const r = mcp();
          return { json: { ok: true, dry_run: !!o.dryRun, provider: adapter.name, scope, ...r }, text: mcpText(r.mcp, !!o.dryRun) };
        }
        const split = splitSkillAspect(m.rest);
        if (split.skill) {
          // The skill file is checked (HK101) before anything is written; it goes in after the hook entries.
          installSkill(adapter.name, scope, ctx, { dryRun: true, force: !!o.force });
        }
        const skill = () => (split.skill ? { skill: installSkill(adapter.name, scope, ctx, { dryRun: !!o.dryRun, force: !!o.force }) } : {});
        if (split.hooks === null) {
          const r = { ...skill(), ...mcp() };
          return { json: { ok: true, dry_run: !!o.dryRun, provider: adapter.name, scope, ...r }, text: [...skillText(r.skill, !!o.dryRun), ...mcpText(r.mcp, !!o.dryRun)] };
        }
        const aspects = aspectsOption(split.hooks);
        // An earlier baton's differing entry is reported, not overwritten: refuse before writing anything.
        const plan = install(adapter, scope, aspects, ctx, { dryRun: true, force: !!o.force });
        if (plan.differing.length && !o.force) {
          fail(
            'HK101',
            `${plan.file} already has baton entries that differ from this install (${plan.differing.map((d) => `${d.event}: ${d.command}`).join('; ')}); nothing changed. Replace them with: baton install ${name} --scope ${scope}${o.aspects ? ` --aspects ${o.aspects}` : ''} --force`,
            { file: plan.file, differing: plan.differing },
          );
        }
        const r = o.dryRun ? plan : install(adapter, scope, aspects, ctx, { force: !!o.force });
        const sk = { ...skill(), ...mcp() };
        return { json: { ok: true, dry_run: !!o.dryRun, ...r, ...sk }, text: [...installText(r, !!o.dryRun), ...skillText(sk.skill, !!o.dryRun), ...mcpText(sk.mcp, !!o.dryRun)] };
      }),
    );

  program
    .command('uninstall')
    .description("remove exactly baton's hook entries from a provider's settings")
    .argument('<provider>', PROVIDER_NAMES.join(' | '))
    .option('--scope <scope>', 'user | project | local (default: every scope of the provider)')
    .option('--dry-run', 'print the diff, change nothing')
    .action((name: string, o) =>
      run(globals(), () => {
        const adapter = providerOf(name);
        const scopes = o.scope ? [scopeOf(o.scope)] : (Object.keys(adapter.settings) as Scope[]);
        const ctx = ctxFor(globals());
        const reports = scopes.map((s) => uninstall(adapter, s, ctx, { dryRun: !!o.dryRun }));
        const skillRemoved = adapter.name === 'claude' ? scopes.filter((s) => s !== 'local').map((s) => uninstallSkill(s, ctx, { dryRun: !!o.dryRun })).filter((f): f is string => f !== null) : [];
        const mcpRemoved = scopes.filter((s) => mcpScopes(adapter.name).includes(s)).map((s) => uninstallMcp(adapter.name, s, ctx, { dryRun: !!o.dryRun })).filter((r) => r.removed);
        const text: string[] = skillRemoved.map((f) => `claude skill: ${o.dryRun ? 'would remove' : 'removed'} ${f}`);
        for (const r of mcpRemoved) {
          text.push(`${r.provider} mcp (${r.scope} scope): ${o.dryRun ? 'would remove' : 'removed'} the baton server from ${r.file}${r.file_removed ? ' (and the file: baton created it)' : ''}`);
          if (r.diff) text.push(r.diff);
        }
        for (const r of reports) {
          text.push(`${r.provider} (${r.scope} scope): ${r.file}: ${r.removed ? `${o.dryRun ? 'would remove' : 'removed'} ${r.removed} entr${r.removed === 1 ? 'y' : 'ies'}` : 'no baton entries'}`);
          if (r.file_removed) text.push(`  removed the file (baton created it; nothing else was in it)`);
          if (r.backup_removed) text.push(`  backup removed (the file is back to it byte for byte): ${r.backup_removed}`);
          if (r.backup) text.push(`  backup of the file before install kept (the file changed since): ${r.backup}`);
          if (r.shim_removed) text.push(`  shim removed: ${r.shim_removed}`);
          if (r.diff) text.push(r.diff);
        }
        return { json: { ok: true, dry_run: !!o.dryRun, results: reports, skill_removed: skillRemoved, mcp_removed: mcpRemoved }, text };
      }),
    );

  program
    .command('status')
    .description('what is wired: one row per agent with its aspects, and when its hook last ran (--all: every agent)')
    .option('--all', 'list the agents with nothing wired too')
    .action((o: { all?: boolean }) =>
      run(globals(), () => {
        const g = globals();
        const home = storeHome(g);
        const ctx = ctxFor(g);
        const rows = [
          ...PROVIDER_NAMES.flatMap((p) => wiring(PROVIDERS[p], ctx)).map((r) => ({ ...r, last_run: readLastRun(home, r.provider, r.aspect) })),
          { ...skillWiring(ctx), last_run: null },
          ...PROVIDER_NAMES.map((p) => ({ ...mcpWiring(p, ctx), last_run: null })),
        ];
        const now = Date.now();
        const agents = agentRows(rows, !!o.all, CODEX_TRUST_HINT);
        const text = agents.length
          ? table(
              agents.map((a) => [
                a.agent,
                a.state,
                a.scopes.join(',') || '-',
                a.aspects.join(', ') || '-',
                a.last_run ? `${relativeTime(a.last_run.at, now)} (${a.last_run.aspect} ${a.last_run.event} ${a.last_run.result})` : '-',
                a.detail,
              ]),
              ['AGENT', 'STATE', 'SCOPE', 'ASPECTS', 'LAST RUN', 'DETAIL'],
            )
          : ['no agent wired: baton install AGENT (baton status --all lists them)'];
        const server = serverStatus(home);
        text.push(`app server  ${server ? `${server.url} (pid ${server.pid}${server.running ? '' : ', not running: a stale server.json'})${server.team ? ` · team replicator ${server.team.state} as ${server.team.machine}` : ''}` : 'not running (baton serve)'}`);
        return { json: { ok: true, agents, rows, server }, text };
      }),
    );

  program
    .command('verify')
    .description('run each installed entry as configured with a synthetic payload; writes nothing')
    .argument('[provider]', PROVIDER_NAMES.join(' | '))
    .action((name: string | undefined) =>
      run(globals(), async () => {
        const g = globals();
        const providers = name ? [providerOf(name)] : PROVIDER_NAMES.map((p) => PROVIDERS[p]);
        const ctx = ctxFor(g);
        // The agent's environment, as it is: baton's --home is not put in it (an entry must name its store).
        const env: NodeJS.ProcessEnv = { ...process.env };
        const home = resolveHome(g.home);
        const mcpRows = (await Promise.all(providers.map((a) => verifyMcp(a.name, ctx, env)))).flat();
        const rows = [...providers.flatMap((a) => verifyProvider(a, ctx, env, home)), ...(providers.some((a) => a.name === 'claude') ? verifySkill(ctx) : []), ...mcpRows];
        const failed = rows.filter((r) => !r.ok);
        const text = rows.length
          ? table(
              rows.map((r) => [
                r.provider,
                r.scope,
                r.event,
                r.ok ? color.green(r.trusted === false ? 'ok, not trusted' : 'ok') : color.red('FAIL'),
                `${r.ms} ms / ${r.budget_ms} ms`,
                [...r.problems, ...(r.trusted === false ? [`Codex skips it until you trust it: ${CODEX_TRUST_HINT}`] : [])].join('; '),
              ]),
              ['PROVIDER', 'SCOPE', 'EVENT', 'RESULT', 'TIME / BUDGET', 'PROBLEM'],
            )
          : [`no baton hook entries found${name ? ` for ${name}` : ''}: install them with baton install ${name ?? 'claude'}`];
        const problem =
          rows.length === 0
            ? { code: 'VERIFY_FAILED', message: `no baton hook entries found${name ? ` for ${name}` : ''}` }
            : failed.length
              ? { code: 'VERIFY_FAILED', message: `${failed.length} of ${rows.length} entries failed` }
              : null;
        return { json: envelope({ entries: rows }, problem), text, exitCode: problem ? 2 : 0 };
      }),
    );

  program
    .command('doctor')
    .description('store size, index health, corrupt logs, idle episodes, wiring, Node, disk')
    .action(() =>
      run(globals(), async () => {
        const g = globals();
        const home = storeHome(g);
        const r = doctor(home, ctxFor(g), new Date());
        // Team mode: the database asked once, read-only, within its connect timeout.
        const team = r.store_exists ? await teamHealthOf(openStore(g)) : null;
        if (team && !team.reachable) {
          r.problems.push({
            message: `the team database ${team.url} is unreachable (${team.error?.code ?? 'TM002'} ${team.error?.message ?? ''}): ${team.owned_here} shared session(s) owned here cannot push what they write`,
            fix: 'baton team status (then: start the database, or fix the URL with baton team join)',
          });
        }
        // Reachable with events to push is normal between syncs: said on the team line, not a problem.
        const mb = (n: number) => `${(n / 1048576).toFixed(2)} MiB`;
        const text = [
          `store      ${home}${r.store_exists ? '' : ' (not created yet)'}`,
          `sessions   ${r.sessions}`,
          `size       logs ${mb(r.sizes.logs)} (prompts ${mb(r.sizes.prompts_in_logs)} of it), contexts ${mb(r.sizes.contexts)}, artifacts ${mb(r.sizes.artifacts)}, index ${mb(r.sizes.index)}, other ${mb(r.sizes.other)}`,
          `index      ${r.index.present ? (r.index.ok ? 'ok' : 'needs attention') : 'absent'}${r.index.conflicts.length ? `, ${r.index.conflicts.length} conflict(s)` : ''}`,
          `logs       ${r.corrupt_logs.length} corrupt, ${r.torn_logs.length} torn`,
          `projection ${r.projections_behind.length} session(s) behind the log (WS202: normal after hook appends; rebuilt on the next read)`,
          `episodes   ${r.open_episodes.length} open`,
          `transcripts ${r.transcript_skips.length ? r.transcript_skips.map((t) => `${t.session} (${t.agent}): ${Object.entries(t.skipped).map(([k, n]) => `${n} ${k}`).join(', ') || `format ${t.unknown_version}`}`).join('; ') : 'no skipped lines'}`,
          `wiring     ${wiringLine(r.wiring, CODEX_TRUST_HINT)}`,
          `node       ${r.node.version}${r.node.ok ? '' : ' (too old)'}`,
          `disk       ${r.disk.free_bytes === null ? '-' : `${mb(r.disk.free_bytes)} free`}`,
          ...(team ? [`team       ${team.machine} · ${team.url} · ${team.reachable ? `reachable, ${team.to_push} to push, ${team.to_pull} to pull` : 'unreachable'}`] : []),
          '',
          ...(r.problems.length
            ? [`${r.problems.length} problem(s):`, ...r.problems.flatMap((p) => [`  - ${p.message}`, `    fix: ${p.fix}`])]
            : ['healthy']),
        ];
        const problem = r.problems.length ? { code: 'DOCTOR_PROBLEMS', message: `${r.problems.length} problem(s): ${r.problems[0].message}` } : null;
        return { json: envelope({ ...r, team }, problem), text, exitCode: problem ? 2 : 0 };
      }),
    );

  const episode = program.command('episode').description('open or close an episode by hand (hooks do it on start/end)');
  episode
    .command('open')
    .argument('<session>', 'session id or unambiguous prefix')
    .option('--if-open', 'an open episode is not an error: keep it')
    .description('open an episode (EP001 when one is already open)')
    .action((sid: string, o) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(sid);
        const open = loadEpisodes(store.dir(id)).open;
        if (open.length) {
          if (!o.ifOpen) fail('EP001', `session ${id} already has an open episode (${open[open.length - 1].episode}); pass --if-open to accept it`, { episode: open[open.length - 1].episode });
          return { json: { ok: true, opened: false, episode: open[open.length - 1] }, text: `episode ${open[open.length - 1].episode} is already open` };
        }
        const now = new Date();
        const writer = cliWriter();
        const r = openEpisode(
          store,
          id,
          {
            provider: 'cli',
            providerSessionId: cliInstanceId(),
            source: 'manual',
            freeze: (ep) =>
              writeFrozenContext(store.dir(id), {
                session: id,
                episode: ep,
                provider: 'cli',
                providerSessionId: cliInstanceId(),
                source: 'manual',
                now,
                injected: '',
                note: 'opened by hand with baton episode open',
              }),
          },
          writer,
          now,
        );
        return { json: { ok: true, opened: r.opened, episode: r.episode }, text: `opened episode ${r.episode.episode}` };
      }),
    );
  episode
    .command('close')
    .argument('<session>', 'session id or unambiguous prefix')
    .option('--reason <reason>', 'why it ended (a deliberate reason → closed, any other → interrupted)', 'manual')
    .option('--episode <id>', 'which open episode (default: the most recent)')
    .option('--if-none', 'no open episode is not an error')
    .description('close the open episode (EP002 when none is open)')
    .action((sid: string, o) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(sid);
        const now = new Date();
        const reason = String(o.reason);
        const r = closeEpisode(
          store,
          id,
          (open) => (o.episode ? open.find((e) => e.episode === o.episode) : open[open.length - 1]),
          reason,
          (ep) => {
            const adapter = findProvider(ep.provider);
            return reason === 'manual' || (adapter && outcomeOf(adapter, reason) === 'closed') ? 'closed' : 'interrupted';
          },
          cliWriter(),
          now,
        );
        if (!r) {
          if (!o.ifNone) fail('EP002', `session ${id} has no open episode${o.episode ? ` named ${o.episode}` : ''}; pass --if-none to accept that`);
          return { json: { ok: true, closed: false }, text: 'no open episode: nothing written' };
        }
        try {
          appendClosure(store.dir(id), r.episode.context_file, { reason, outcome: r.outcome, durationMs: r.duration_ms, prompts: r.prompts, now, pointer: pointerSummary(store.dir(id)) });
        } catch {}
        return {
          json: { ok: true, closed: true, episode: r.episode.episode, reason, outcome: r.outcome, duration_ms: r.duration_ms, prompts: r.prompts, at: isoMillis(now) },
          text: `closed episode ${r.episode.episode}: ${r.outcome}`,
        };
      }),
    );

  program
    .command('demo')
    .description('play a scripted Claude Code session through the real hook in a temporary store')
    .option('--keep', 'keep the temporary store and print its path')
    .action((o) =>
      run(globals(), () => {
        const r = runDemo(process.execPath, batonBinPath(), { keep: !!o.keep });
        const failed = r.steps.some((s) => s.exit_code !== 0);
        const problem = failed ? { code: 'INTERNAL', message: 'a demo step exited non-zero' } : null;
        return { json: envelope({ ...r }, problem), text: demoText(r), exitCode: failed ? 1 : 0 };
      }),
    );
}
