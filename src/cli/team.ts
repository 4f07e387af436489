// `baton team ...` and `baton sync`: the command wiring only. The work lives in dist/team.cjs
// (src/team), required when one of these runs, so `postgres` is loaded by nothing else.
import type { Command } from 'commander';
import { requireTeamBundle } from '../ops/team.ts';
import type { GlobalOptions } from './output.ts';

type TeamEntry = { teamCommand(name: string, g: GlobalOptions, args: string[], opts: Record<string, unknown>): Promise<void> };
const load = (): TeamEntry => requireTeamBundle<TeamEntry>();

export function registerTeamCommands(program: Command, globals: () => GlobalOptions): void {
  const team = program.command('team').description('share sessions across machines through PostgreSQL (docs/team.md)');
  const act =
    (name: string) =>
    (...a: unknown[]) => {
      const cmd = a[a.length - 1] as Command;
      return load().teamCommand(name, globals(), cmd.args, cmd.opts());
    };
  team.command('join').description('join a team: keep its PostgreSQL URL in <home>/team.json (0600)').argument('<url>', 'postgres://[user[:password]@]host[:port]/database').option('--name <machine>', "this machine's name in the team (default: the host name)").action(act('join'));
  team.command('leave').description('forget the team connection (shared sessions stay as they are)').action(act('leave'));
  team.command('status').description('connection, machines, lag per shared session, conflicts').action(act('status'));
  team.command('list').description("the team's shared sessions (from PostgreSQL)").action(act('list'));
  team
    .command('share')
    .description('share a session with the team, owned by this machine; --project: every session of a project, now and created later (shared at the next sync)')
    .argument('[id]', 'session id (or unambiguous prefix)')
    .option('--project <path>', "share every session whose workspace is in this folder, and record the rule in <home>/team.json")
    .action(act('share'));
  team
    .command('unshare')
    .description("delete the team's copy of a session this machine owns; --project: forget the project's rule (its shared sessions stay shared)")
    .argument('[id]', 'session id (or unambiguous prefix)')
    .option('--project <path>', 'stop sharing new sessions of this folder')
    .action(act('unshare'));
  team.command('take').description('take ownership of a shared session (pulls everything first)').argument('<id>', 'session id (or unambiguous prefix)').option('--steal', 'take it from an owner that is unreachable').action(act('take'));
  team.command('release').description('push everything, then give up ownership so another machine can take it').argument('<id>', 'session id (or unambiguous prefix)').action(act('release'));
  team
    .command('resolve')
    .description("re-append a conflict file's events as notes by this owner (needs the lease), then move the file to conflicts/resolved/")
    .argument('<id>', 'session id (or unambiguous prefix)')
    .option('--conflict <file>', 'the conflict file (its name, as team status and the web page show it)')
    .option('--all', "every conflict file of the session")
    .action(act('resolve'));
  program
    .command('sync')
    .description('push what this machine owns and pull what the team has, once (or --watch)')
    .option('--watch', 'keep replicating: LISTEN/NOTIFY wake-ups, retry with backoff when the database is down')
    .option('--interval <ms>', 'with --watch: how often to look at the local logs', '200')
    .action(act('sync'));
}
