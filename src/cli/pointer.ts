// `baton pointer ...` (pointer.md): publish (request on stdin, receipt on stdout), show,
// report [--recall REV], migrate FILE [--apply]. Wiring and formatting only; the rules
// live in src/pointer.
import type { Command } from 'commander';
import { readFdBounded, readInputBounded } from '../store/bounded-read.ts';
import { cliWriter, type Writer } from '../store/store.ts';
import { pointerView } from '../ops/pointer.ts';
import { readJournal } from '../pointer/journal.ts';
import { applyMigration, planMigration } from '../pointer/migrate.ts';
import { MAX_REQUEST_BYTES, type Receipt, publishRaw } from '../pointer/publish.ts';
import { recallOutput, reportOutput } from '../pointer/report.ts';
import { encodeState, readState } from '../pointer/state.ts';
import { parseCount } from './args.ts';
import { type GlobalOptions, errorEnvelope, openStore, run } from './output.ts';

/**
 * What publish prints: pointer.md's receipt as it is (the protocol agents parse); under
 * --json, a refusal in the CLI's one envelope, error {code, message, ...details}.
 */
function receiptOutput(receipt: Receipt, json: boolean): unknown {
  if (receipt.ok || !json) return receipt;
  const { ok: _ok, error, ...details } = receipt;
  const message = 'message' in receipt ? receipt.message : `current generation ${receipt.current_generation}, revision ${receipt.current_revision}`;
  return errorEnvelope(error, message, details);
}

/** The publisher is run by the agent: surface cli, actor agent. */
function agentWriter(): Writer {
  return { ...cliWriter(), actor: 'agent' };
}

/** The largest v1 envelope file `pointer migrate` reads (docs/cli.md, "Input limits"): 8 KiB of text, escaped. */
export const MIGRATE_MAX_BYTES = 64 * 1024;

export function registerPointerCommands(program: Command, globals: () => GlobalOptions): void {
  const pointer = program.command('pointer').description('the task pointer: publish by compare-and-swap, show, report, migrate (docs/pointer.md)');

  pointer
    .command('publish')
    .description('publish the pointer: one JSON request on stdin, one JSON receipt on stdout (exit 0 ok, 2 refused)')
    .action(() => {
      const g = globals();
      try {
        // publishRaw refuses REQUEST_TOO_LARGE: read one byte past the limit, no more.
        const raw = readFdBounded(0, MAX_REQUEST_BYTES).data;
        const receipt = publishRaw(openStore(g), raw, { writer: agentWriter() });
        process.stdout.write(`${JSON.stringify(receiptOutput(receipt, !!g.json))}\n`);
        if (!receipt.ok) {
          const detail = 'detail' in receipt ? ` ${receipt.detail}` : '';
          const msg = 'message' in receipt ? ` ${receipt.message}` : ` current generation ${receipt.current_generation}, revision ${receipt.current_revision}`;
          process.stderr.write(`baton: ${receipt.error}${detail}${msg}\n`);
          process.exitCode = 2;
        }
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        process.stdout.write(`${JSON.stringify(receiptOutput({ ok: false, error: 'WRITE_FAILED', message: msg }, !!g.json))}\n`);
        process.stderr.write(`baton: WRITE_FAILED ${msg}\n`);
        process.exitCode = 2;
      }
    });

  pointer
    .command('show')
    .argument('<session>', 'session id or unambiguous prefix')
    .description('print the current pointer state (ABSENT/0 when none was published)')
    .action((session: string) => {
      const g = globals();
      return run(g, () => {
        const store = openStore(g);
        const id = store.resolve(session);
        const json = pointerView(store, id);
        const o = json;
        const text = [`SESSION_ID=${id}`, `STATUS=${o.status ?? o.generation}`, `GENERATION=${o.generation}`, `REVISION=${o.revision}`];
        if (o.updated_at) text.push(`UPDATED_AT=${o.updated_at}`);
        if (o.task_id) text.push(`TASK_ID=${o.task_id}`);
        if (o.pointer_text !== null) text.push('POINTER_TEXT_BEGIN', o.pointer_text, 'POINTER_TEXT_END');
        return { json, text };
      });
    });

  pointer
    .command('report')
    .argument('<session>', 'session id or unambiguous prefix')
    .option('--recall <rev>', 'the journal record of that revision (the text only for the current revision)')
    .description('read-only: state, age, journal depth, revision gaps, invalid lines, the last ten records')
    .action((session: string, opts: { recall?: string }) => {
      const g = globals();
      return run(g, () => {
        const store = openStore(g);
        const id = store.resolve(session);
        const dir = store.dir(id);
        const o = readState(dir, id);
        const j = readJournal(dir);
        const out = opts.recall !== undefined ? recallOutput(o, j, parseCount(opts.recall, '--recall'), !!g.json) : reportOutput(o, j, store.clock(), !!g.json);
        return { json: { ok: true, ...out.json }, text: out.text };
      });
    });

  pointer
    .command('migrate')
    .argument('<file>', 'a v1 envelope {"envelope_version":1,"session_id","task_id","text","written_at"}')
    .option('--apply', 'write the state into the session (default: dry run, print what would be written)')
    .description('convert a v1 pointer envelope to a state.json v3 (dry run unless --apply)')
    .action((file: string, opts: { apply?: boolean }) => {
      const g = globals();
      return run(g, () => {
        const raw = readInputBounded(file, MIGRATE_MAX_BYTES);
        const store = openStore(g);
        if (!opts.apply) {
          const r = planMigration(store, raw);
          if (!g.quiet) process.stderr.write(`baton: dry run, nothing written; --apply writes this state to ${r.path}\n`);
          return { json: { ok: true, ...r }, text: encodeState(r.state) };
        }
        const r = applyMigration(store, raw, cliWriter());
        return { json: { ok: true, ...r }, text: `wrote ${r.path}: revision ${r.state.revision}, generation ${r.state.generation}${r.journal_appended ? '' : ' (journal append failed)'}` };
      });
    });
}
