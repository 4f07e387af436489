// The handoff block (transcripts.md, "Pick and continue"; docs/adr/0065): what an agent that
// `baton continue --in` starts in a session is told, after the pointer block, of the work done
// there before it — who handed over (FROM_AGENT, the episode, when), the last user requests and
// assistant conclusions newest first with their seq, the files touched, the refs with their
// state, ITEMS_OMITTED — extractive (no model call), at most the budget's bytes.
// Invariants: built from the session's recent projection (transcripts/recent.json) and its refs,
// never a fold of the log, so a 100,000-item session costs the start hook one small read; shown
// once: the first start that carries the handoff's id (BATON_HANDOFF) claims it by creating
// handoffs/<id>.json with O_EXCL, every later start with that id gets nothing. Lean: on the
// hook path (no library).
import * as fs from 'node:fs';
import { join } from '../core/path.ts';
import { fail } from '../core/errors.ts';
import { isoMillis } from '../core/time.ts';
import type { RefNow } from '../store/refs.ts';
import { FILE_MODE, ensureSubdir, parseSelfChecked, readFileOrNull } from '../store/fsutil.ts';
import type { Recent, RecentLine } from '../transcripts/capture.ts';

/** The handoff's environment variable, set by `baton continue --in` in the agent it starts. */
export const HANDOFF_ENV = 'BATON_HANDOFF';
export const DEFAULT_HANDOFF_BUDGET = 4096;
export const MIN_HANDOFF_BUDGET = 512;
export const MAX_HANDOFF_BUDGET = 65536;
/** Where a claimed handoff is recorded (one file per handoff id). */
export const HANDOFFS_DIR = 'handoffs';
/** A line's text is cut to this many bytes (the projection keeps up to 600 characters). */
const LINE_TEXT_BYTES = 480;
/** A line shortened to fit the budget keeps at least this much text, else it is left out. */
const MIN_TEXT_BYTES = 80;
/** The newest request and conclusion share a small budget down to this much text each. */
const MIN_FIRST_TEXT_BYTES = 40;
/** About the bytes of a REQUEST or CONCLUSION line before its text (`REQUEST seq=N at=<ISO> agent=<name>: `). */
const FIRST_LINE_PREFIX_BYTES = 64;
const MAX_FILES = 24;

/** What BATON_HANDOFF carries: `id=…,from=…,to=…,budget=…[,episode=…]`. */
export interface HandoffSpec {
  id: string;
  /** The agent the session last ran in. */
  from: string;
  /** The agent the handoff is for: only its start claims it. */
  to: string;
  budget: number;
  /** The last episode of `from` in the session, when it had one. */
  episode: string | null;
}

const ID_RULE = /^[a-z0-9]{8,32}$/;
const NAME_RULE = /^[a-z][a-z0-9-]{0,31}$/;
const EPISODE_RULE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function formatHandoffSpec(s: HandoffSpec): string {
  return `id=${s.id},from=${s.from},to=${s.to},budget=${s.budget}${s.episode ? `,episode=${s.episode}` : ''}`;
}

/** The spec in BATON_HANDOFF; HK001 when it is not one baton wrote. */
export function parseHandoffSpec(value: string): HandoffSpec {
  const f: Record<string, string> = {};
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) fail('HK001', `${HANDOFF_ENV} is not a handoff baton continue wrote: ${JSON.stringify(value.slice(0, 80))}`);
    f[part.slice(0, eq)] = part.slice(eq + 1);
  }
  const budget = Number(f.budget);
  if (
    !ID_RULE.test(f.id ?? '') ||
    !NAME_RULE.test(f.from ?? '') ||
    !NAME_RULE.test(f.to ?? '') ||
    !Number.isSafeInteger(budget) ||
    budget < MIN_HANDOFF_BUDGET ||
    budget > MAX_HANDOFF_BUDGET ||
    (f.episode !== undefined && !EPISODE_RULE.test(f.episode))
  ) {
    fail('HK001', `${HANDOFF_ENV} is not a handoff baton continue wrote: ${JSON.stringify(value.slice(0, 80))}`);
  }
  return { id: f.id, from: f.from, to: f.to, budget, episode: f.episode ?? null };
}

/** The session's recent projection, or null when it has none (no item captured yet) or it is unreadable. */
export function readRecentProjection(sessionDir: string): Recent | null {
  // capture.ts's projection (RECENT_FILE), read without loading the capture engine. Its path is
  // joined here, not at load: node:path's join at the top level cost every prompt ~0.25 M instructions.
  const b = readFileOrNull(join(sessionDir, 'transcripts', 'recent.json'));
  const r = b && (parseSelfChecked(b.toString('utf8')) as unknown as Recent | null);
  return r?.v === 1 && Array.isArray(r.users) && Array.isArray(r.assistants) && Array.isArray(r.files) ? r : null;
}

/** An episode id (`<provider>-<base36 ms>-<4 base36>`) carries the time it was opened. */
export function episodeOpenedAt(episode: string | null): string | null {
  const m = episode ? /-([0-9a-z]+)-[0-9a-z]{4}$/.exec(episode) : null;
  if (!m) return null;
  const ms = Number.parseInt(m[1], 36);
  return Number.isSafeInteger(ms) && ms > 0 && ms < 253402300800000 ? isoMillis(new Date(ms)) : null;
}

export interface HandoffInput {
  sessionId: string;
  spec: HandoffSpec;
  recent: Recent | null;
  refs: readonly RefNow[];
}

export interface RenderedHandoff {
  /** The block, newline-terminated, at most spec.budget bytes. */
  block: string;
  /** The seqs the block cites. */
  cited: number[];
  itemsOmitted: number;
}

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** `text` with whitespace runs folded to one space and control characters as `?`, cut to `max` bytes on a character boundary (… marks a cut). */
export function oneLine(text: string, max: number): string {
  // Control characters (a transcript's escape sequences) become `?`: the block reaches the agent and a terminal.
  const flat = text.replace(/\s+/g, ' ').trim().replace(/[\x00-\x1f\x7f-\x9f]/g, '?');
  if (bytes(flat) <= max) return flat;
  const buf = Buffer.from(flat, 'utf8');
  let end = Math.max(0, max - 3);
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return `${buf.toString('utf8', 0, end)}…`;
}

interface Candidate {
  seq: number;
  /** Sort key in the output: messages by seq newest first, then files, then refs. */
  section: 0 | 1 | 2;
  prefix: string;
  text: string;
  /** May be shortened to fit (messages). */
  shrinks: boolean;
}

/**
 * Renders the block (pure). Priority when the budget is short: the newest request and the
 * newest conclusion, the refs, the other messages newest first, then the files; what is left
 * out is counted in ITEMS_OMITTED (the session's items not cited).
 */
export function renderHandoff(h: HandoffInput): RenderedHandoff {
  const { spec, recent } = h;
  const items = recent?.items ?? 0;
  const at = (recent && items > 0 && recent.last_at) || episodeOpenedAt(spec.episode) || 'UNKNOWN';
  const head = [
    'HANDOFF_BEGIN',
    `SESSION_ID=${h.sessionId}`,
    `FROM_AGENT=${spec.from}`,
    `FROM_EPISODE=${spec.episode ?? 'NONE'}`,
    `FROM_AT=${at}`,
    `TO_AGENT=${spec.to}`,
    `ITEMS=${items}`,
  ];
  if (items === 0 || !recent) {
    head.push(`NOTE=no transcript items are recorded in this session: nothing of ${spec.from}'s conversation can be handed over; the task pointer above is all there is`);
  } else {
    head.push(
      `INSTRUCTION=This session was handed over to you from ${spec.from}. Below, extracted from the session's transcript newest first: the user's last requests (REQUEST), the assistant's last conclusions (CONCLUSION), the files touched (FILE) and the refs (REF); seq=N cites transcript item N (baton session show ${h.sessionId}). The task pointer above stays the source of truth for the goal and the next step.`,
    );
  }
  const tailFor = (omitted: number) => `ITEMS_OMITTED=${omitted}\nHANDOFF_END\n`;
  let headText = `${head.join('\n')}\n`;
  // Room for the tail with the largest omitted count it can show.
  let room = spec.budget - bytes(headText) - bytes(tailFor(items));
  // A small budget (512 is the least) spends its bytes on the newest request and conclusion,
  // not on the long instruction: a short one says what the lines are.
  if (items > 0 && room < 2 * (FIRST_LINE_PREFIX_BYTES + MIN_TEXT_BYTES)) {
    head[7] = `INSTRUCTION=Handed over from ${spec.from}, newest first; seq=N cites transcript item N; the task pointer rules.`;
    headText = `${head.join('\n')}\n`;
    room = spec.budget - bytes(headText) - bytes(tailFor(items));
  }
  if (room < 0) {
    // A header longer than the budget (a very long session id): the block without its instruction.
    const bare = `${head.slice(0, 7).join('\n')}\n`;
    return { block: `${bare}${tailFor(items)}`, cited: [], itemsOmitted: items };
  }

  const msg = (kind: 'REQUEST' | 'CONCLUSION', l: RecentLine): Candidate => ({
    seq: l.seq,
    section: 0,
    prefix: `${kind} seq=${l.seq} at=${l.at} agent=${l.agent}: `,
    text: oneLine(l.text, LINE_TEXT_BYTES),
    shrinks: true,
  });
  const users = recent ? [...recent.users].sort((a, b) => b.seq - a.seq).map((l) => msg('REQUEST', l)) : [];
  const assistants = recent ? [...recent.assistants].sort((a, b) => b.seq - a.seq).map((l) => msg('CONCLUSION', l)) : [];
  const refs: Candidate[] = h.refs.map((r) => ({
    seq: 0,
    section: 2,
    prefix: `REF source=${r.ref.source} state=${r.state} version=${r.ref.source_version} current=${r.current_version} digest=${r.ref.digest}`,
    text: '',
    shrinks: false,
  }));
  const files: Candidate[] = recent
    ? [...recent.files]
        .sort((a, b) => b.seq - a.seq)
        .slice(0, MAX_FILES)
        .map((f) => ({ seq: f.seq, section: 1, prefix: `FILE seq=${f.seq} path=`, text: oneLine(f.path, 300), shrinks: false }))
    : [];
  const rest = [...users.slice(1), ...assistants.slice(1)].sort((a, b) => b.seq - a.seq);
  const order = [...users.slice(0, 1), ...assistants.slice(0, 1), ...refs, ...rest, ...files];

  const chosen: { c: Candidate; line: string }[] = [];
  // The newest request and the newest conclusion share the room first: neither may take more than half.
  const firsts = new Set([users[0], assistants[0]].filter(Boolean));
  const half = Math.floor(room / 2);
  for (const c of order) {
    if (firsts.has(c) && bytes(`${c.prefix}${c.text}\n`) > half && half - bytes(c.prefix) - 1 >= MIN_FIRST_TEXT_BYTES) c.text = oneLine(c.text, half - bytes(c.prefix) - 1);
    const full = `${c.prefix}${c.text}\n`;
    if (bytes(full) <= room) {
      chosen.push({ c, line: full });
      room -= bytes(full);
    } else if (c.shrinks && room - bytes(c.prefix) - 1 >= MIN_TEXT_BYTES) {
      const line = `${c.prefix}${oneLine(c.text, room - bytes(c.prefix) - 1)}\n`;
      chosen.push({ c, line });
      room -= bytes(line);
    }
  }
  chosen.sort((a, b) => a.c.section - b.c.section || b.c.seq - a.c.seq);
  const cited = [...new Set(chosen.filter((x) => x.c.section !== 2).map((x) => x.c.seq))].sort((a, b) => b - a);
  const itemsOmitted = Math.max(0, items - cited.length);
  return { block: `${headText}${chosen.map((x) => x.line).join('')}${tailFor(itemsOmitted)}`, cited, itemsOmitted };
}

/** What a claimed handoff records (handoffs/<id>.json). */
export interface HandoffClaim {
  v: 1;
  id: string;
  from: string;
  episode: string | null;
  to: string;
  provider_session: string;
  claimed_at: string;
  bytes: number;
  cited: number[];
  items_omitted: number;
}

/**
 * At a start carrying BATON_HANDOFF: the block for this start, or '' when the handoff is for
 * another agent or was already shown (claimed by an earlier start). The claim is made before
 * the block is returned, so a start racing another gets it at most once between them.
 */
export function handoffAtStart(o: {
  sessionDir: string;
  sessionId: string;
  agent: string;
  providerSessionId: string;
  value: string;
  refs: () => readonly RefNow[];
  now: Date;
}): string {
  const spec = parseHandoffSpec(o.value);
  if (spec.to !== o.agent) return '';
  const claimed = join(o.sessionDir, HANDOFFS_DIR, `${spec.id}.json`);
  if (fs.existsSync(claimed)) return '';
  const r = renderHandoff({ sessionId: o.sessionId, spec, recent: readRecentProjection(o.sessionDir), refs: o.refs() });
  ensureSubdir(join(o.sessionDir, HANDOFFS_DIR));
  const claim: HandoffClaim = {
    v: 1,
    id: spec.id,
    from: spec.from,
    episode: spec.episode,
    to: spec.to,
    provider_session: o.providerSessionId,
    claimed_at: isoMillis(o.now),
    bytes: bytes(r.block),
    cited: r.cited,
    items_omitted: r.itemsOmitted,
  };
  let fd: number;
  try {
    fd = fs.openSync(claimed, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return '';
    throw e;
  }
  try {
    fs.writeSync(fd, `${JSON.stringify(claim)}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return r.block;
}
