// `baton ref capture|list|render` (refs.md): wiring and output only; the rules are in
// core/refs.ts and the storage in store/refs.ts.
import type { Command } from 'commander';
import { fail } from '../core/errors.ts';
import { REF_INVALID_BOUND, render } from '../core/refs.ts';
import { DEFAULT_TTL, REF_NOT_FOUND, type RefNow, type StoredRef, captureRef, refsNow } from '../store/refs.ts';
import { readInputBounded } from '../store/bounded-read.ts';
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

/** A ref without its body, as --json prints it. */
function refJson(ref: StoredRef): Record<string, unknown> {
  const { body, schema: _schema, ...rest } = ref;
  return { ...rest, bytes: Buffer.byteLength(body, 'utf8') };
}

function nowJson(r: RefNow): Record<string, unknown> {
  return { ...refJson(r.ref), state: r.state, current_version: r.current_version };
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
        const { ref: r, event } = captureRef(store, { from: o.from, into: o.into, ttlMs, bounds, body, writer: cliWriter() });
        const text = [`captured ${r.digest} from ${r.source} at version ${r.source_version} into ${r.target} (seq ${event.seq})`];
        text.push(`expires ${r.expires_at} · ${sizeText(r)}`);
        return { json: { ok: true, session: r.target, ref: { ...refJson(r), state: 'fresh', current_version: r.source_version } }, text };
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
        const now = store.clock();
        const refs = refsNow(store, id, now);
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
        return { json: { ok: true, session: id, refs: refs.map(nowJson) }, text };
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
        const now = store.clock();
        let refs = refsNow(store, id, now);
        if (o.digest !== undefined) {
          const d = o.digest.trim().toLowerCase();
          refs = refs.filter((r) => d !== '' && r.ref.digest.startsWith(d));
          if (refs.length === 0) fail(REF_NOT_FOUND, `no ref with digest ${JSON.stringify(o.digest)} in ${id}`, { session: id, digest: o.digest });
        }
        const rendered = refs.map((r) => `${render(r.ref, now, r.current_version)}\n`).join('');
        return {
          json: { ok: true, session: id, rendered, refs: refs.map((r) => ({ source: r.ref.source, digest: r.ref.digest, state: r.state, current_version: r.current_version })) },
          text: rendered,
        };
      }),
    );
}
