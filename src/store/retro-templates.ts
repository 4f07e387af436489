// Retrospective templates (exchange.md, Archive templates): `<home>/templates/NAME.md`, else
// a built-in (`default`, `brief`), with `{{part}}` placeholders for the retrospective's parts.
// Reads template files; writes nothing. An unknown name is WS402, raised before the archive
// touches anything.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fail } from '../core/errors.ts';
import { type SessionView, presentText } from '../core/session.ts';
import { isoMillis } from '../core/time.ts';

export const BUILTIN_TEMPLATES: Record<string, string> = {
  default: `# Retrospective: {{title}}

- session: {{id}}
- created: {{created}}
- archived: {{archived}}
- duration: {{duration}}
- events: {{events}}
{{task_line}}
## Goal and pointer

{{pointer}}

## Decisions

{{decisions}}

## Open questions

{{open_questions}}

## Context

{{context}}

## Artifacts

{{artifacts}}

## Episodes

{{episodes}}
`,
  brief: `# Retrospective: {{title}}

- session: {{id}}
- created: {{created}}
- archived: {{archived}}
- duration: {{duration}}
- events: {{events}}
{{task_line}}
## Goal and pointer

{{pointer}}

## Artifacts

{{artifacts}}

## Episodes

{{episodes}}
`,
};

/** The placeholders a template may use, each a part of the retrospective. */
export const TEMPLATE_PARTS = [
  'title', 'id', 'created', 'archived', 'duration', 'events', 'task', 'task_line',
  'goal', 'next', 'pointer', 'decisions', 'open_questions', 'context', 'artifacts', 'episodes',
] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const templatesDir = (home: string): string => join(home, 'templates');

/** Every template name there is: the built-ins and `<home>/templates/*.md`. */
export function templateNames(home: string): string[] {
  let files: string[] = [];
  try {
    files = fs.readdirSync(templatesDir(home)).filter((n) => n.endsWith('.md') && NAME_RE.test(n.slice(0, -3))).map((n) => n.slice(0, -3));
  } catch {}
  return [...new Set([...Object.keys(BUILTIN_TEMPLATES), ...files])].sort();
}

/** The template text: the home's file first (it may override a built-in), else the built-in; WS402 otherwise. */
export function loadTemplate(home: string, name: string): { name: string; source: 'home' | 'builtin'; text: string } {
  if (NAME_RE.test(name)) {
    try {
      return { name, source: 'home', text: fs.readFileSync(join(templatesDir(home), `${name}.md`), 'utf8') };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const builtin = BUILTIN_TEMPLATES[name];
    if (builtin !== undefined) return { name, source: 'builtin', text: builtin };
  }
  const names = templateNames(home);
  return fail('WS402', `unknown retrospective template ${JSON.stringify(name)}; there are: ${names.join(', ')} (add one as ${join(templatesDir(home), `${name}.md`)})`, {
    template: name,
    templates: names,
    dir: templatesDir(home),
  });
}

export interface EpisodeSummary {
  episode: string;
  outcome: string;
  reason: string;
  duration_ms: number;
  prompts: number;
}

const bullets = (items: string[]): string => (items.length ? items.join('\n') : 'none');
const DECISION_RE = /^\s*(decided|decision)\b/i;

/** Every part of a retrospective, rendered as Markdown text. Pure. */
export function retrospectiveParts(v: SessionView, pointer: { status: string; text: string | null } | null, now: Date, episodes: EpisodeSummary[]): Record<TemplatePart, string> {
  const started = Date.parse(v.created_at);
  const dur = Number.isFinite(started) ? Math.max(0, now.getTime() - started) : 0;
  const text = (c: SessionView['context'][number]): string => presentText(c.seq, c.text, v.redactions);
  const entry = (c: SessionView['context'][number]): string => `- seq ${c.seq} (${c.ts}): ${text(c).replace(/\n/g, '\n  ')}`;
  const lines = pointer?.text ? pointer.text.split('\n') : [];
  const field = (re: RegExp): string | null => {
    const l = lines.find((x) => re.test(x));
    return l ? l.replace(re, '').trim() : null;
  };
  const isDecision = (c: SessionView['context'][number]): boolean => c.tags.includes('decision') || DECISION_RE.test(text(c));
  const isQuestion = (c: SessionView['context'][number]): boolean => c.tags.includes('question') || c.tags.includes('open') || text(c).trim().endsWith('?');
  const eps = episodes.map((e) => `- ${e.episode}: ${e.outcome} (${e.reason}), ${Math.round(e.duration_ms / 1000)}s, ${e.prompts} prompts`);
  for (const e of v.open_episodes) eps.push(`- ${e.episode}: never closed (opened ${e.opened_at})`);
  return {
    title: v.title || v.id,
    id: v.id,
    created: v.created_at,
    archived: isoMillis(now),
    duration: `${Math.round(dur / 60000)} min`,
    events: String(v.events),
    task: v.task_id ?? '',
    task_line: v.task_id ? `- task: ${v.task_id}\n` : '',
    goal: field(/^\s*goal\s*:/i) ?? lines[0] ?? 'not stated',
    next: field(/^\s*next( step)?\s*:/i) ?? 'not stated',
    pointer: pointer?.text ? pointer.text : `no pointer published${pointer ? ` (status ${pointer.status})` : ''}`,
    decisions: bullets(v.context.filter(isDecision).map(entry)),
    open_questions: bullets(v.context.filter(isQuestion).map(entry)),
    context: v.context.length ? v.context.map(entry).join('\n') : 'no entries',
    artifacts: bullets([...v.artifacts].map(([name, a]) => `- ${name} (sha256 ${a.sha256})`)),
    episodes: bullets(eps),
  };
}

/** Fills `{{part}}` placeholders (spaces inside the braces allowed); unknown ones stay as written. */
export function fillTemplate(text: string, parts: Record<TemplatePart, string>): string {
  const out = text.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (all, name: string) => ((TEMPLATE_PARTS as readonly string[]).includes(name) ? parts[name as TemplatePart] : all));
  return out.endsWith('\n') ? out : `${out}\n`;
}
