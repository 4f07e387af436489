// The command line's usage rules, checked on argv against the command tree before commander
// parses it, so that they hold for every command, present and future (docs/cli.md):
// - a word that names no command is a usage error (exit 2) at every level, even when
//   `--help` follows it (commander would print the parent's help and exit 0);
// - a command group or bare `baton` without a command is a usage error: the `baton: USAGE`
//   line, then its help, on stderr, exit 2;
// - `--version` prints the version, and with `--json` one JSON document;
// - with `--json`, a usage error is one JSON document on stdout.
// `--help` on a known command is left to commander (exit 0).
import type { Command, Option } from 'commander';
import { BatonError } from '../core/errors.ts';
import { nearestIds } from '../store/store.ts';
import { reportError } from './output.ts';

const isHelp = (a: string) => a === '--help' || a === '-h';

/** The option `token` names on `cmd` or on one of its parents (global options are accepted anywhere). */
function optionOf(cmd: Command, token: string): Option | undefined {
  const flag = token.split('=')[0];
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.short === flag || x.long === flag);
    if (o) return o;
  }
  return undefined;
}

/** The command's name path, e.g. `baton session artifact`. */
function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function refuse(cmd: Command, json: boolean, message: string, details: Record<string, unknown>, showHelp: boolean): never {
  reportError({ json }, new BatonError('USAGE', message, details));
  if (showHelp) process.stderr.write(`\n${cmd.helpInformation({ error: true })}`);
  process.exit(2);
}

/** Applies the rules above to `argv` (process.argv); returns when commander should take over. */
export function checkUsage(program: Command, argv: string[], version: string): void {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  const json = (end < 0 ? args : args.slice(0, end)).includes('--json');
  let cmd = program;
  let i = 0;
  for (;;) {
    let help = false;
    let operand: string | undefined;
    for (; i < args.length; i++) {
      const a = args[i];
      if (a === '--') {
        i = args.length;
        break;
      }
      if (a.startsWith('-') && a !== '-') {
        if (isHelp(a)) help = true;
        else if (a === '--version' && cmd === program) {
          process.stdout.write(json ? `${JSON.stringify({ ok: true, version })}\n` : `${version}\n`);
          process.exit(0);
        }
        const o = optionOf(cmd, a);
        if (o && (o.required || o.optional) && !a.includes('=')) i++;
        continue;
      }
      operand = a;
      i++;
      break;
    }
    // A command without subcommands parses its own arguments (commander reports what is wrong).
    if (!cmd.commands.length) return;
    if (operand === undefined) {
      if (help) return;
      // The `baton: USAGE` line first (as every refusal), then the group's help (not with --json).
      refuse(cmd, json, `${pathOf(cmd)} needs a command (${pathOf(cmd)} --help lists them)`, { command: pathOf(cmd) }, !json);
    }
    if (operand === 'help') {
      // `baton help [COMMAND]`: commander prints the help of a command that exists.
      const next = args.slice(i).find((a) => !a.startsWith('-'));
      if (next === undefined || cmd.commands.some((c) => c.name() === next || c.aliases().includes(next))) return;
      operand = next;
    }
    const sub = cmd.commands.find((c) => c.name() === operand || c.aliases().includes(operand));
    if (!sub) {
      const names = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
      const near = nearestIds(operand, names, 1);
      const hint = near.length ? ` (did you mean ${near[0]}?)` : '';
      refuse(cmd, json, `unknown command '${operand}' for ${pathOf(cmd)}${hint}`, { command: operand, known: names }, !json);
    }
    cmd = sub;
  }
}
