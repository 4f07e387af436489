// `baton session export|import` and `baton skill check|record` (exchange.md): argument
// parsing, progress and output only; the rules live in src/exchange.
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import type { Layout } from '../exchange/format.ts';
import { exportSession } from '../exchange/export.ts';
import { importArchive } from '../exchange/import.ts';
import { checkSkill, recordSkillEvent } from '../exchange/skill.ts';
import { batonBinPath } from '../hooks/main.ts';
import { cliWriter } from '../store/store.ts';
import { describeWorkspace } from '../store/workspace.ts';
import { type GlobalOptions, openStore, run } from './output.ts';
import { type Progress, progress } from './progress.ts';

declare const BATON_VERSION: string;

const MiB = 1024 * 1024;
/** Work smaller than this finishes before a bar would be worth drawing. */
const BAR_FROM_BYTES = 4 * MiB;

const SIZE_UNITS: Record<string, number> = { '': 1, k: 1024, kib: 1024, m: MiB, mib: MiB, g: 1024 * MiB, gib: 1024 * MiB };

export function parseSize(text: string): number {
  const m = /^(\d+)\s*([a-z]*)$/i.exec(String(text).trim());
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) <= 0) fail('USAGE', `invalid size ${JSON.stringify(text)}: use bytes or forms like 64MiB, 1GiB`);
  return Number(m[1]) * unit;
}

function layoutOf(format: string | undefined): Layout {
  if (format === undefined || format === 'baton' || format === 'zip') return 'baton';
  if (format === 'world-session-v1') return 'world-session-v1';
  return fail('USAGE', `unknown --format ${JSON.stringify(format)}: use baton (or zip) or world-session-v1`);
}

/** A bar in MiB on a TTY once the work is known to be a few MB; nothing otherwise. */
function byteBar(label: string): { onProgress: (done: number, total: number) => void; done(): void } {
  let bar: Progress | null = null;
  let shown = 0;
  let steps = 0;
  return {
    onProgress(done, total) {
      if (!bar) {
        if (total < BAR_FROM_BYTES) return;
        steps = Math.ceil(total / MiB);
        bar = progress(steps, `${label} (MiB)`);
      }
      const now = Math.min(steps, Math.floor(done / MiB));
      if (now > shown) {
        bar.tick(now - shown);
        shown = now;
      }
    },
    done() {
      if (!bar) return;
      if (steps > shown) bar.tick(steps - shown);
      bar.done();
    },
  };
}

export function registerExchangeCommands(program: Command, globals: () => GlobalOptions): void {
  const session = program.commands.find((c) => c.name() === 'session');
  if (!session) throw new Error('register the session commands first');

  session
    .command('export')
    .description('write a session as a shareable zip: redacted (the log and text artifacts; binary artifacts only with --include-binary), no local paths, no lock files, every entry digested')
    .argument('<id>', 'session id or unambiguous prefix')
    .option('--out <file>', 'the zip to write (default ./<id>.zip); it must not exist')
    .option('--format <format>', 'baton (alias zip) or world-session-v1 (the World Session TOML layout)', 'baton')
    .option('--to <dir>', 'world-session-v1 only: write the layout into this new folder instead of a zip')
    .option('--include-contexts', 'also export the frozen start contexts (local; left out by default)')
    .option('--include-prompts', 'keep the prompt texts (by default only their digest and length go out)')
    .option('--include-binary', 'also ship binary artifacts as they are (text artifacts are redacted; binary ones cannot be, so by default they are left out and named)')
    .option('--force', 'export the verified prefix of a corrupt log instead of refusing (WS201)')
    .action((idArg: string, o) =>
      run(globals(), async () => {
        const store = openStore(globals());
        const layout = layoutOf(o.format);
        const id = store.resolve(idArg);
        const bar = byteBar('export');
        const r = await exportSession(store, id, {
          layout,
          out: o.out ? resolve(o.out) : undefined,
          to: o.to ? resolve(o.to) : undefined,
          includeContexts: !!o.includeContexts,
          includePrompts: !!o.includePrompts,
          includeBinary: !!o.includeBinary,
          force: !!o.force,
          userHome: process.env.HOME || homedir(),
          localPaths: [
            { prefix: process.execPath, as: 'node' },
            { prefix: dirname(dirname(batonBinPath())), as: '<baton>' },
          ],
          batonVersion: typeof BATON_VERSION === 'string' ? BATON_VERSION : '0.0.0-dev',
          now: store.clock(),
          onProgress: bar.onProgress,
        });
        bar.done();
        const where = r.file ?? r.dir;
        const text = [`exported ${id} (${r.events} events, ${r.entries} entries, ${r.bytes} bytes) to ${where}`, `digest ${r.digest}`];
        if (r.partial) text.push(`partial: the log is corrupt at line ${r.partial.corrupt_line}; only the ${r.partial.verified_to_seq} verified events were exported (WS201)`);
        if (r.torn) text.push('a torn last line of the log was left out (run baton session repair)');
        for (const a of r.artifacts) {
          if (a.kind === 'text' && a.redacted > 0) text.push(`artifact ${a.name}: ${a.redacted} secret${a.redacted === 1 ? '' : 's'} redacted`);
          else if (a.kind === 'binary' && !a.shipped) text.push(`artifact ${a.name}: binary, left out (--include-binary ships it as it is, unredacted)`);
          else if (a.kind === 'binary') text.push(`artifact ${a.name}: binary, shipped as it is (not redacted)`);
        }
        return { json: { ok: true, ...r }, text };
      }),
    );

  session
    .command('import')
    .description('import an export (baton or world-session-v1) as a new session; refuses unsafe archives (WS403) writing nothing')
    .argument('<file>', 'the zip an export wrote, or a folder export --to wrote')
    .option('--title <title>', 'the new session title (default: the origin title)')
    .option('--cwd <dir>', 'the workspace of the new session (default: the current directory)')
    .option('--max-size <size>', 'largest archive accepted; its entries may decompress to 10x this', '1GiB')
    .action((file: string, o) =>
      run(globals(), async () => {
        const store = openStore(globals());
        const maxSize = parseSize(o.maxSize);
        const cwd = resolve(o.cwd ?? process.cwd());
        if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) fail('USAGE', `--cwd ${cwd} is not a directory`);
        const bar = byteBar('import');
        const r = await importArchive(store, resolve(file), { title: o.title, workspace: describeWorkspace(cwd), maxSize, writer: cliWriter(), onProgress: bar.onProgress });
        bar.done();
        return {
          json: { ok: true, ...r },
          text: [`imported ${r.origin_id} as ${r.id} (${r.events} events, ${r.artifacts} artifacts${r.contexts ? `, ${r.contexts} contexts` : ''})`, `digest ${r.digest}`],
        };
      }),
    );

  const skill = program.command('skill').description('skills that work with sessions (World Session runtime contract)');
  skill
    .command('check')
    .description('check that a SKILL.md declares context-protocol: world-session-v1 (WS301 if not)')
    .argument('<path>', 'a SKILL.md or the folder holding it')
    .action((path: string) =>
      run(globals(), () => {
        const r = checkSkill(resolve(path));
        const text = [`${r.file}: ${r.name ?? '(no name)'} declares ${r.context_protocol}`];
        for (const w of r.warnings) text.push(`  warning: ${w}`);
        return { json: { ok: true, ...r }, text };
      }),
    );
  skill
    .command('record')
    .description('append runtime.skill_invoked or runtime.skill_completed to a session (what a skill reports)')
    .argument('<id>', 'session id or unambiguous prefix')
    .argument('<what>', 'invoked | completed')
    .requiredOption('--skill <name>', 'the skill name')
    .option('--runtime <runtime>', 'the runtime the skill runs in (invoked)', 'ide-skill')
    .option('--degraded', 'invoked in a host that lacks some of its runtimes')
    .option('--unavailable <list>', 'capabilities missing, comma-separated (invoked)')
    .option('--result <path>', 'where the result went (completed)')
    .action((idArg: string, what: string, o) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(idArg);
        const ev = recordSkillEvent(store, id, cliWriter(), what, {
          skill: o.skill,
          runtime: o.runtime,
          degraded: !!o.degraded,
          unavailable: o.unavailable ? String(o.unavailable).split(',').map((s: string) => s.trim()).filter(Boolean) : undefined,
          result: o.result,
        });
        return { json: { ok: true, id, seq: ev.seq, type: ev.type }, text: `${id} seq ${ev.seq} ${ev.type}` };
      }),
    );
}
