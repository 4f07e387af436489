// `baton ref capture|list|render` (refs.md): wiring and output only; the rules are in
// core/refs.ts and the storage in store/refs.ts.
import type { Command } from 'commander';
import { REF_INVALID_BOUND } from '../core/refs.ts';
import { captureRefOp, listRefs, renderRefs } from '../ops/refs.ts';
import { readInputBounded } from '../store/bounded-read.ts';
import { DEFAULT_TTL, type StoredRef } from '../store/refs.ts';
import { cliWriter } from '../store/store.ts';
import { parseCount, parseDurationFlag } from './args.ts';
import { type GlobalOptions, color, openStore, relativeTime, run, table } from './output.ts';

/** --max-bytes / --max-lines: a whole number, 0 = no limit (REF_INVALID_BOUND otherwise). */
function parseBound(name: string, text: string | undefined): number {
  return text === undefined ? 0 : parseCount(text, name, { code: REF_INVALID_BOUND });
}

/** The largest --body-file read (docs/cli.md, "Input limits"); the ref's own bounds cut it further. */
export const REF_BODY_MAX_INPUT_BYTES = 8 * 1024 * 1024;

function readBodyFile(path: string): string {
  return readInputBounded(path === '-' ? 0 : path, REF_BODY_MAX_INPUT_BYTES).toString('utf8');
}

function stateText(s: string): string {
  return s === 'fresh' ? color.green(s) : s === 'stale' ? color.yellow(s) : color.red(s);
}

function sizeText(ref: StoredRef): string {
  const bytes = Buffer.byteLength(ref.body, 'utf8');
  return ref.truncated ? `${bytes} of ${ref.original_bytes} B (truncated)` : `${bytes} B`;
}

export function registerRefCommands(program: Command, globals: () => GlobalOptions): void {
  const ref = program.command('ref').description('cross-session references: bounded, sourced snapshots marked fresh, expired or stale');

  ref
    .command('capture')
    .description("capture another session's conclusion into this one (default body: its pointer text, else its context.md)")
    .requiredOption('--from <src>', 'source session id (or unambiguous prefix)')
    .requiredOption('--into <dst>', 'target session id (or unambiguous prefix)')
    .option('--max-bytes <n>', 'cut the body to N UTF-8 bytes, never inside a character (0 = no limit)')
    .option('--max-lines <n>', 'cut the body to N lines, before the byte cut (0 = no limit)')
    .option('--ttl <duration>', 'time until the ref expires (90s, 10m, 2h, 7d)', DEFAULT_TTL)
    .option('--body-file <file>', 'capture this file (- for stdin) instead of the default body')
    .action((o: { from: string; into: string; maxBytes?: string; maxLines?: string; ttl: string; bodyFile?: string }) =>
      run(globals(), () => {
        const bounds = { maxBytes: parseBound('--max-bytes', o.maxBytes), maxLines: parseBound('--max-lines', o.maxLines) };
        const ttlMs = parseDurationFlag(o.ttl, '--ttl', { allowZero: true }); // zero: the store's REF_EXPIRY
        const body = o.bodyFile !== undefined ? readBodyFile(o.bodyFile) : null;
        const store = openStore(globals());
        const { json, ref: r, seq } = captureRefOp(store, { from: o.from, into: o.into, ttlMs, bounds, body, writer: cliWriter() });
        const text = [`captured ${r.digest} from ${r.source} at version ${r.source_version} into ${r.target} (seq ${seq})`];
        text.push(`expires ${r.expires_at} · ${sizeText(r)}`);
        return { json, text };
      }),
    );

  ref
    .command('list')
    .description("a session's refs with their current state")
    .argument('<dst>', 'target session id (or unambiguous prefix)')
    .action((dst: string) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(dst);
        const { json, refs, now } = listRefs(store, id);
        const rows = refs.map((r) => [
          r.ref.source,
          stateText(r.state),
          String(r.ref.source_version),
          String(r.current_version),
          r.ref.digest,
          relativeTime(r.ref.captured_at, now.getTime()),
          relativeTime(r.ref.expires_at, now.getTime()),
          sizeText(r.ref),
        ]);
        const text = refs.length ? table(rows, ['SOURCE', 'STATE', 'VERSION', 'CURRENT', 'DIGEST', 'CAPTURED', 'EXPIRES', 'SIZE']) : [`no refs in ${id}`];
        return { json, text };
      }),
    );

  ref
    .command('render')
    .description("a session's refs as the wrapper the agent sees, with their current state")
    .argument('<dst>', 'target session id (or unambiguous prefix)')
    .option('--digest <d>', 'only the ref(s) with this digest (or digest prefix)')
    .action((dst: string, o: { digest?: string }) =>
      run(globals(), () => {
        const store = openStore(globals());
        const id = store.resolve(dst);
        const json = renderRefs(store, id, o.digest);
        return {
          json,
          text: json.rendered,
        };
      }),
    );
}
