// Skills and the World Session runtime contract (seed 003, exchange.md): a SKILL.md that
// works with sessions declares `context-protocol: world-session-v1` in its YAML frontmatter
// (WS301 otherwise); baton ships its own skill (BATON_SKILL_MD) that tells an agent how to
// read and publish the pointer, cite a session and attach an artifact; a skill's use is
// recorded as runtime.skill_invoked / runtime.skill_completed events.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fail } from '../core/errors.ts';
import type { StoredEvent } from '../core/events.ts';
import type { FsStore, Writer } from '../store/store.ts';

export const CONTEXT_PROTOCOL = 'world-session-v1';
const KNOWN_RUNTIMES = ['cli', 'web', 'ide-skill', 'api', 'mcp', 'hook'];

export const SAMPLE_FRONTMATTER = `---
name: my-skill
description: What the skill does and when to use it.
runtimes:
  - cli
  - ide-skill
context-protocol: world-session-v1
session-access:
  read: true
  write: true
  artifacts: ["*.md"]
---`;

type Yaml = string | string[] | Record<string, string>;

function scalar(raw: string): string {
  const t = raw.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  return t.replace(/\s+#.*$/, '');
}

/**
 * The frontmatter's top-level keys: scalars, `- item` lists, one level of `key: value`
 * maps and `[a, b]` flow lists. Enough for a skill's declaration; not a YAML parser.
 */
export function parseFrontmatter(text: string): Record<string, Yaml> | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return null;
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (end < 0) return null;
  const out: Record<string, Yaml> = {};
  let key: string | null = null;
  for (const line of lines.slice(1, end)) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const top = /^([A-Za-z0-9_.-]+):(.*)$/.exec(line);
    if (top) {
      key = top[1];
      const v = top[2].trim();
      if (v.startsWith('[') && v.endsWith(']')) out[key] = v.slice(1, -1).split(',').map(scalar).filter(Boolean);
      else out[key] = v === '' ? '' : scalar(v);
      continue;
    }
    if (!key) continue;
    const item = /^\s+-\s*(.*)$/.exec(line);
    if (item) {
      const cur = out[key];
      out[key] = [...(Array.isArray(cur) ? cur : []), scalar(item[1])];
      continue;
    }
    const sub = /^\s+([A-Za-z0-9_.-]+):(.*)$/.exec(line);
    if (sub) {
      const cur = out[key];
      out[key] = { ...(cur && typeof cur === 'object' && !Array.isArray(cur) ? cur : {}), [sub[1]]: scalar(sub[2]) };
    }
  }
  return out;
}

export interface SkillCheck {
  file: string;
  name: string | null;
  context_protocol: string;
  runtimes: string[];
  session_access: Record<string, string> | null;
  warnings: string[];
}

/** Checks a SKILL.md (or the folder holding one); WS301 with a corrected sample when the declaration is missing or wrong. */
export function checkSkill(path: string): SkillCheck {
  let file = path;
  try {
    if (fs.statSync(path).isDirectory()) file = join(path, 'SKILL.md');
  } catch {}
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return fail('USAGE', `cannot read ${file}: ${(e as Error).message}`);
  }
  return checkSkillText(text, file);
}

export function checkSkillText(text: string, file: string): SkillCheck {
  const fm = parseFrontmatter(text);
  const refuse = (why: string): never =>
    fail('WS301', `${file}: ${why}; a skill that reads or writes sessions must declare context-protocol: ${CONTEXT_PROTOCOL} in its frontmatter, for example:\n${SAMPLE_FRONTMATTER}`, {
      file,
      sample: SAMPLE_FRONTMATTER,
    });
  if (!fm) return refuse('no YAML frontmatter (--- lines at the top)');
  const declared = fm['context-protocol'];
  if (declared === undefined || declared === '') return refuse('the frontmatter does not declare context-protocol');
  if (declared !== CONTEXT_PROTOCOL) return refuse(`context-protocol is ${JSON.stringify(declared)}, not ${CONTEXT_PROTOCOL}`);
  const warnings: string[] = [];
  const name = typeof fm.name === 'string' && fm.name ? fm.name : null;
  if (!name) warnings.push('no name in the frontmatter');
  const runtimes = Array.isArray(fm.runtimes) ? fm.runtimes : typeof fm.runtimes === 'string' && fm.runtimes ? [fm.runtimes] : [];
  if (runtimes.length === 0) warnings.push('no runtimes listed (World Session: a skill declares the runtimes it supports)');
  for (const r of runtimes) if (!KNOWN_RUNTIMES.includes(r)) warnings.push(`unknown runtime ${JSON.stringify(r)} (known: ${KNOWN_RUNTIMES.join(', ')})`);
  const access = fm['session-access'];
  return { file, name, context_protocol: CONTEXT_PROTOCOL, runtimes, session_access: access && typeof access === 'object' && !Array.isArray(access) ? access : null, warnings };
}

/** `baton skill record`: the runtime.* event a skill reports; lifecycle facts need no lease. */
export function recordSkillEvent(
  store: FsStore,
  id: string,
  writer: Writer,
  what: string,
  o: { skill: string; runtime?: string; degraded?: boolean; unavailable?: string[]; result?: string },
): StoredEvent {
  if (!o.skill) fail('USAGE', '--skill names the skill');
  let type: string;
  const payload: Record<string, unknown> = { skill_name: o.skill };
  if (what === 'invoked') {
    type = 'runtime.skill_invoked';
    payload.runtime = o.runtime || 'ide-skill';
    if (o.degraded) payload.degraded = true;
    if (o.unavailable?.length) payload.unavailable_capabilities = o.unavailable;
  } else if (what === 'completed') {
    type = 'runtime.skill_completed';
    if (o.result) payload.result_path = o.result;
  } else return fail('USAGE', `record what? ${JSON.stringify(what)}: use invoked or completed`);
  const [ev] = store.append(id, { type, surface: writer.surface, actor: 'agent', payload }, { ...writer, actor: 'agent' });
  return ev;
}

/** baton's own skill, installed by `baton install claude --aspects skill`. */
export const BATON_SKILL_MD = `---
name: baton
description: Durable, resumable sessions with baton. Use to see where the task stands after a compaction or /clear, to publish the goal and next step (the task pointer), to cite another session's conclusion, or to attach a file to the session.
runtimes:
  - cli
  - ide-skill
context-protocol: world-session-v1
session-access:
  read: true
  write: true
  artifacts: ["*"]
generated-by: baton
---

# baton: the session this work belongs to

baton keeps one append-only log per session in its store and wires itself into this
agent's hooks. The session id is in the context block a hook injected at the start
(\`SESSION_ID=...\`), or in \`$BATON_SESSION\` when that is set. Every command below takes
\`--json\` for one JSON document on stdout; a refusal prints \`baton: <CODE> <message>\` on
stderr and exits 2 (the codes are in baton's docs).

Record that this skill is in use, and when it is done:

\`\`\`sh
baton skill record "$SESSION_ID" invoked --skill baton --runtime ide-skill
baton skill record "$SESSION_ID" completed --skill baton
\`\`\`

## Read the pointer (where the task stands)

\`\`\`sh
baton pointer show "$SESSION_ID" --json     # status, generation, revision, task_id, pointer_text
baton session show "$SESSION_ID"            # lease, open episode, refs, last events
\`\`\`

The pointer is a short note: the goal and the next concrete step. \`DIRTY\` means work
happened since it was last published: merge that work into it and publish it again.

## Publish the pointer (compare-and-swap)

Pipe one JSON request into \`baton pointer publish\`; it answers with one JSON receipt.
Take \`expected_generation\` and \`expected_revision\` from the pointer you read (for the
first publish: \`ABSENT\` and 0), keep the \`task_id\`:

\`\`\`sh
printf '%s' '{"schema_version":3,"session_id":"SESSION_ID","expected_generation":"g-...","expected_revision":4,"task_id":"...","target_status":"CLEAN","pointer_text":"Goal: ...\\nNext: ..."}' | baton pointer publish
\`\`\`

A \`STALE_GENERATION\` or \`STALE_REVISION\` receipt means someone published in between:
its \`current_generation\` and \`current_revision\` are the state now; merge and retry.

## Cite another session

\`\`\`sh
baton session list --all                    # find it
baton ref capture --from OTHER_ID --into "$SESSION_ID" --ttl 2h
baton ref list "$SESSION_ID"                # fresh, stale (the source moved on) or expired
\`\`\`

A ref is a bounded, dated snapshot of the other session's pointer: say where a fact came
from and how old it is, and treat a stale or expired ref as history, not as the plan.

## Attach an artifact

Content writes need the session's lease:

\`\`\`sh
baton session resume "$SESSION_ID"          # take the lease (WS101: someone else holds it)
baton session artifact add "$SESSION_ID" ./notes.md
baton session append "$SESSION_ID" --text "Decided: ..." --actor agent
baton session release "$SESSION_ID"
\`\`\`

Never write into baton's store folder directly: the log is the single source of truth and
only baton appends to it.
`;
