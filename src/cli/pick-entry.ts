// The entry of `baton pick` (dist/pick.mjs, loaded by bin/baton.cjs for `pick` alone, so Ink
// and React never load for any other command nor on the hook path). Parses
// `[--home H] [--json] [--quiet] pick [--all] [--print] [--json]`, refuses without a terminal
// on stdin and stdout before reading anything (exit 2, nothing written), lists the first
// screen from the index, draws the picker on the alternate screen and, when it ends, leaves
// the terminal as it found it (main screen, cursor shown, raw mode off: Ink's unmount and
// restore() below, also on a signal) before printing anything.
import chalk from 'chalk';
import { render } from 'ink';
import { createElement } from 'react';
import { fail } from '../core/errors.ts';
import { writeFd } from '../core/stdio.ts';
import { resolveHome } from '../store/home.ts';
import { type GlobalOptions, reportError } from './output.ts';
import { continueChosen, continueCommand, listPage, loadExtras } from './pick-data.ts';
import { layoutFor } from './pick-model.ts';
import { Picker } from './pick-ui.ts';
import { workspaceFilter } from './session-list.ts';

export interface PickOptions {
  all?: boolean;
  print?: boolean;
}

const USAGE = `Usage: baton pick [--all] [--print] [--json]

Pick a session in the terminal: the sessions of this directory (--all: every one), newest
first. Type to filter (fuzzy over title, pointer text and first prompt); Tab switches to
full-text search over what the agents said and did; Enter continues the chosen session;
Esc or Ctrl-C leaves.

Options:
  --all        every workspace's sessions
  --print      print the chosen session's id and its continue command instead of running it
  --json       print {"ok":true,"session":ID,"command":...} for the chosen session
  -h, --help   this help
`;

/** Parses the argv after the node and script paths (pure); throws USAGE for anything else. */
export function parsePickArgv(args: readonly string[]): { globals: GlobalOptions; pick: PickOptions; help: boolean } {
  const globals: GlobalOptions = {};
  const pick: PickOptions = {};
  let help = false;
  let seen = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq < 0 ? a : a.slice(0, eq);
    if (name === '--home') {
      const v = eq < 0 ? args[++i] : a.slice(eq + 1);
      if (v === undefined || v === '' || (eq < 0 && v.startsWith('-'))) fail('USAGE', 'option --home needs a folder');
      globals.home = v;
    } else if (eq >= 0) fail('USAGE', `unknown option ${JSON.stringify(a)}`);
    else if (a === '--json') globals.json = true;
    else if (a === '--quiet') globals.quiet = true;
    else if (a === '--all') pick.all = true;
    else if (a === '--print') pick.print = true;
    else if (a === '--help' || a === '-h') help = true;
    else if (a === 'pick' && !seen) seen = true;
    else fail('USAGE', a.startsWith('-') ? `unknown option ${JSON.stringify(a)}` : `unexpected argument ${JSON.stringify(a)}`);
  }
  if (!seen) fail('USAGE', 'expected the pick command');
  return { globals, pick, help };
}

const ENTER_ALT = '\x1b[?1049h\x1b[H\x1b[2J';
const LEAVE_ALT = '\x1b[?1049l\x1b[?25h';

async function pickCommand(globals: GlobalOptions, opts: PickOptions): Promise<number> {
  // Nothing is read or written before this: the index is made by the first listing.
  if (!process.stdin.isTTY || !process.stdout.isTTY) fail('USAGE', 'pick needs a terminal; use baton session list');
  const home = resolveHome(globals.home);
  const cwd = workspaceFilter({ all: opts.all });
  const layout = layoutFor(process.stdout.columns || 80, process.stdout.rows || 24);
  // The first screen (and a margin for the first moves), one query; the rest after the first paint.
  const firstPage = Math.max(100, layout.list * 2);
  const first = listPage(home, cwd, firstPage, null);
  for (const r of first.slice(0, layout.list)) loadExtras(home, r);
  let chosen: string | null = null;
  let inAlt = true;
  const restore = (): void => {
    if (!inAlt) return;
    inAlt = false;
    try {
      if (process.stdin.isTTY && process.stdin.isRaw) process.stdin.setRawMode(false);
    } catch {}
    writeFd(1, LEAVE_ALT);
  };
  process.on('exit', restore);
  for (const sig of ['SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      restore();
      process.exit(128 + (sig === 'SIGTERM' ? 15 : 1));
    });
  }
  writeFd(1, ENTER_ALT);
  // The selection is drawn in inverse on any terminal: supports-color turns every style off under
  // CI=true (without a CI it knows), which would leave the chosen row unmarked. Colours follow
  // NO_COLOR in the picker's own code (pick-ui.ts), not here.
  if (chalk.level === 0) chalk.level = 1;
  const app = render(
    createElement(Picker, {
      home,
      cwd,
      first,
      complete: first.length < firstPage,
      color: !process.env.NO_COLOR,
      nowMs: Date.now,
      onDone: (id) => {
        chosen = id;
      },
    }),
    { exitOnCtrlC: false, patchConsole: false },
  );
  await app.waitUntilExit();
  restore();
  if (chosen === null) return 130; // cancelled, as fzf does: nothing printed
  const id: string = chosen;
  if (globals.json) {
    writeFd(1, `${JSON.stringify({ ok: true, session: id, command: continueCommand(id, globals.home) })}\n`);
    return 0;
  }
  if (opts.print) {
    writeFd(1, `${[id, continueCommand(id, globals.home)].join('\n')}\n`);
    return 0;
  }
  // Enter: `baton continue ID` on this terminal (the agent the session last ran in, through its own resume).
  return continueChosen(home, id, globals.home);
}

async function main(): Promise<void> {
  let globals: GlobalOptions = {};
  try {
    const parsed = parsePickArgv(process.argv.slice(2));
    globals = parsed.globals;
    if (parsed.help) {
      writeFd(1, USAGE);
      return;
    }
    process.exitCode = await pickCommand(parsed.globals, parsed.pick);
  } catch (e) {
    reportError(globals, e);
  }
  // Ink leaves stdin referenced on some paths; the picker is done.
  process.exit();
}

void main();
