// `baton status` and doctor's wiring line as people read them: one row per agent with the
// aspects that are wired (hook aspects, the skill, MCP), not one row per agent and aspect.
// Agents with nothing wired are left out unless asked for (--all). Pure: rows in, rows out.
import type { WiringRow } from '../providers/install.ts';

export interface AspectRow extends Pick<WiringRow, 'provider' | 'scopes' | 'missing' | 'foreign' | 'trusted'> {
  /** A hook aspect, or `skill`, `mcp`. */
  aspect: string;
  state: string;
  last_run?: { at: string; event: string; result: string } | null;
}

export interface AgentRow {
  agent: string;
  state: string;
  scopes: string[];
  /** The aspects that are there: `session`, `pointer (partial)`, `mcp (foreign)`. */
  aspects: string[];
  last_run: { at: string; event: string; result: string; aspect: string } | null;
  detail: string;
}

const shown = (r: AspectRow): boolean => r.state === 'wired' || r.state === 'partial' || r.state === 'foreign';

/** One row per agent, in the order the agents first appear; `all` keeps agents with nothing wired. */
export function agentRows(rows: readonly AspectRow[], all: boolean, trustHint: string): AgentRow[] {
  const agents = [...new Set(rows.map((r) => r.provider))];
  const out: AgentRow[] = [];
  for (const agent of agents) {
    const mine = rows.filter((r) => r.provider === agent);
    const present = mine.filter(shown);
    if (!present.length && !all) continue;
    const scopes = [...new Set(present.flatMap((r) => r.scopes))];
    let last: AgentRow['last_run'] = null;
    for (const r of mine) if (r.last_run && (!last || r.last_run.at > last.at)) last = { ...r.last_run, aspect: r.aspect };
    const untrusted = present.some((r) => r.trusted === false);
    const state = !present.length
      ? 'absent'
      : present.every((r) => r.state === 'wired')
        ? untrusted
          ? 'wired, not trusted'
          : 'wired'
        : present.every((r) => r.state === 'foreign')
          ? 'foreign'
          : 'partial';
    const details: string[] = [];
    for (const r of present) {
      const missing = r.missing.filter((m) => !m.includes('has no such event'));
      if (r.state === 'partial' && missing.length) details.push(`${r.aspect}: missing ${missing.join(', ')}`);
      if (r.state === 'foreign' && r.foreign.length) details.push(`${r.aspect}: ${r.foreign[0]}`);
    }
    if (untrusted) details.push(trustHint);
    out.push({
      agent,
      state,
      scopes,
      aspects: present.map((r) => (r.state === 'wired' ? r.aspect : `${r.aspect} (${r.state})`)),
      last_run: last,
      detail: details.join('; '),
    });
  }
  return out;
}

/** Doctor's wiring line: `claude=wired(session,prompt,pointer,transcript; user) ...`, then how many agents have nothing. */
export function wiringLine(rows: readonly AspectRow[], trustHint: string): string {
  const agents = agentRows(rows, true, trustHint);
  const wired = agents.filter((a) => a.state !== 'absent');
  const none = agents.length - wired.length;
  const parts = wired.map((a) => `${a.agent}=${a.state.replace(', ', ',')}(${a.aspects.join(',')}${a.scopes.length ? `; ${a.scopes.join(',')}` : ''})`);
  if (none) parts.push(`${none} agent(s) not wired (baton status --all)`);
  return parts.length ? parts.join(' ') : 'nothing wired (baton install AGENT)';
}
