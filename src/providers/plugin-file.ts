// baton's plugin for opencode and Kilo (hooks.md, opencode and Kilo): a plain JS file baton
// writes, owns and removes (`~/.config/opencode/plugin/baton.js`, `.opencode/plugin/baton.js`,
// Kilo's `~/.config/kilo/plugin/baton.js`, `.kilo/plugin/baton.js`). It runs inside the agent's
// process, so it only translates: four moments of a session become a JSON payload in baton's
// field names on the stdin of the command its config line names (`baton hook opencode`), and
// the `{"context": ...}` that command prints goes to the model. Every rule stays in the hook.
// It never throws into the agent, and kills a hook that outlives the timeout. The config line
// (`const BATON = {...};`) is the file's only variable part: it is what install, status and
// verify read back. Pure: text in, text out. CLI only.
import { fail } from '../core/errors.ts';
import type { HookEntryRef } from './settings.ts';
import type { ProviderAdapter } from './types.ts';

const CONFIG_LINE = /^const BATON = (.*);$/m;

interface PluginConfig {
  provider: string;
  hooks: Record<string, string>;
  timeoutMs: number;
}

/** The hook entries of a plugin file baton wrote; HK102 when the file is not one. */
export function pluginEntries(text: string, file: string): HookEntryRef[] {
  let cfg: unknown;
  try {
    cfg = JSON.parse(CONFIG_LINE.exec(text)?.[1] ?? '');
  } catch {
    cfg = null;
  }
  const hooks = cfg && typeof cfg === 'object' ? (cfg as PluginConfig).hooks : undefined;
  const ok = !!hooks && typeof hooks === 'object' && !Array.isArray(hooks) && Object.values(hooks).every((c) => typeof c === 'string');
  if (!ok) fail('HK102', `${file} is not a plugin file baton wrote (fix or remove it by hand, then run the command again)`, { file });
  return Object.entries(hooks as Record<string, string>).map(([event, command], i) => ({ event, group: i, hook: 0, command, offset: 0, length: 0 }));
}

/** The whole plugin file for these entries (one command per event, in the order given). */
export function renderPlugin(adapter: ProviderAdapter, entries: readonly { event: string; command: string }[]): string {
  const cfg: PluginConfig = { provider: adapter.name, hooks: Object.fromEntries(entries.map((e) => [e.event, e.command])), timeoutMs: adapter.timeoutValue };
  // Replacer functions: a `$&` in a path must stay as written.
  return PLUGIN.replace('__TITLE__', () => adapter.title)
    .replace('__PROVIDER__', () => adapter.name)
    .replace('__CONFIG__', () => JSON.stringify(cfg));
}

// The plugin itself. Events (opencode 1.18.33 and Kilo 7.7.7 seen): `session.created` (a new
// session: start, source startup), the first `chat.message` of a session this process has not
// started (`--continue`, `--session`: start, source resume), `session.compacted` (start, source
// compact, also in a process that had not started it: the model's context was rebuilt),
// `chat.message` (prompt), `experimental.session.compacting` (pre-compact; opencode
// does not say manual or auto), `session.idle` (end, reason idle: the agent finished its turn;
// opencode and Kilo have no session end). A subagent's session (it has a parentID) is skipped.
// The start's context is pushed to the system prompt of every request of that session; a
// prompt's context is a synthetic part of the user's message, kept in the history like the
// context Claude Code adds to a prompt (a later prompt may be answered by a one-line
// UNCHANGED that refers to it). With the transcript aspect, session.idle also carries the
// messages since the last idle this process sent (`transcript_items`, each `{info, parts}` as
// the plugin's client returns it: opencode and Kilo keep them in SQLite, which the hook cannot
// read; ADR 0046).
const PLUGIN = `// baton's plugin for __TITLE__, written by \`baton install __PROVIDER__\`. baton owns this file:
// change or remove it with \`baton install\` / \`baton uninstall\` (an edit is overwritten).
// It pipes a session's start, prompts, compaction and idle into baton's hook as JSON and gives
// the model the context the hook prints. It never throws into the agent and never waits on a
// hook longer than timeoutMs.
import { spawn } from 'node:child_process';

const BATON = __CONFIG__;

export const BatonPlugin = async ({ client, directory }) => {
  const started = new Map(); // session id -> its start (a promise): this process started it
  const sentUpTo = new Map(); // session id -> the time up to which its messages were sent
  const loadedAt = Date.now();
  const system = new Map(); // session id -> the start's context
  const children = new Set(); // subagent sessions
  const wanted = (event) => typeof BATON.hooks[event] === 'string';

  const hook = (event, sessionID, fields) =>
    new Promise((resolve) => {
      let out = '';
      let child;
      let timer;
      const done = () => {
        clearTimeout(timer);
        let context = '';
        try {
          const j = JSON.parse(out);
          if (j && typeof j.context === 'string') context = j.context;
        } catch {}
        resolve(context);
      };
      try {
        child = spawn('/bin/sh', ['-c', BATON.hooks[event]], { cwd: directory, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
        timer = setTimeout(() => {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {}
        }, BATON.timeoutMs);
        child.stdout.on('data', (d) => (out += d));
        child.on('error', done);
        child.on('close', done);
        child.stdin.on('error', () => {});
        child.stdin.end(JSON.stringify({ hook_event_name: event, session_id: sessionID, cwd: directory, ...fields }));
      } catch {
        done();
      }
    });

  // The transcript aspect: the session.idle command runs it unless its --aspects leave it out.
  const wantsTranscript = () => {
    const m = /--aspects[= ]+['"]?([a-z,]+)/.exec(BATON.hooks['session.idle'] || '');
    return !m || m[1].split(',').includes('transcript');
  };
  // A string over 64 KiB is cut here (the hook cuts every text further): a payload stays small.
  const cap = (v, depth) => {
    if (typeof v === 'string') return v.length > 65536 ? v.slice(0, 49152) + '\\n[… cut by baton: ' + (v.length - 65536) + ' characters …]\\n' + v.slice(-16384) : v;
    if (!v || typeof v !== 'object' || depth > 32) return v;
    if (Array.isArray(v)) return v.map((x) => cap(x, depth + 1));
    const o = {};
    for (const k of Object.keys(v)) o[k] = cap(v[k], depth + 1);
    return o;
  };
  // The newest of these messages, oldest first, each cut: at most \`count\` of them and \`bytes\`
  // of JSON (the newest one always).
  const newest = (messages, count, bytes) => {
    const items = [];
    let size = 0;
    for (let i = messages.length - 1; i >= 0 && items.length < count; i--) {
      const m = cap(messages[i], 0);
      size += JSON.stringify(m).length;
      if (size > bytes && items.length) break;
      items.unshift(m);
    }
    return items;
  };
  // The session's messages (with their parts, as the plugin API gives them) created or
  // completed since the last send of this process (since it loaded, the first time), newest
  // last, at most 4 MiB of them: the turn baton's transcript aspect records.
  const transcript = async (sessionID) => {
    if (!client || !wantsTranscript()) return {};
    try {
      const since = sentUpTo.get(sessionID) ?? loadedAt;
      const now = Date.now();
      const res = await client.session.messages({ path: { id: sessionID } });
      const all = Array.isArray(res && res.data) ? res.data : [];
      const fresh = all.filter((m) => {
        const t = (m && m.info && m.info.time) || {};
        return Math.max(t.created || 0, t.completed || 0) >= since;
      });
      const items = newest(fresh, Infinity, 4 * 1024 * 1024);
      sentUpTo.set(sessionID, now);
      return { transcript_items: items, transcript_omitted: fresh.length - items.length };
    } catch {
      return {};
    }
  };

  // The catch-up at a resume: the newest messages of the session from before this process
  // loaded (at most 64, 1 MiB), which an earlier process may not have handed over (a \`run\`
  // exits without waiting for the plugin's idle handler). The hook stores only what it lacks.
  // Once per session and process: a TUI resumes at every turn, and the idle sends the rest.
  const caughtUp = new Set();
  const before = async (sessionID) => {
    if (!client || !wantsTranscript() || caughtUp.has(sessionID)) return {};
    try {
      const res = await client.session.messages({ path: { id: sessionID } });
      const all = Array.isArray(res && res.data) ? res.data : [];
      const old = all.filter((m) => ((m && m.info && m.info.time) || {}).created < loadedAt);
      const items = newest(old, 64, 1024 * 1024);
      caughtUp.add(sessionID);
      return items.length ? { transcript_items: items } : {};
    } catch {
      return {};
    }
  };

  const start = (sessionID, source) => {
    const run = wanted('session.start') ? (source === 'resume' ? before(sessionID) : Promise.resolve({})).then((fields) => hook('session.start', sessionID, { source, ...fields })) : Promise.resolve('');
    const p = run.then((context) => {
      if (context) system.set(sessionID, context);
    });
    started.set(sessionID, p);
    return p;
  };

  return {
    event: async ({ event }) => {
      try {
        const p = event.properties || {};
        if (event.type === 'session.created' && p.info && p.info.id) {
          if (p.info.parentID) children.add(p.info.id);
          else await start(p.info.id, 'startup');
        } else if (event.type === 'session.compacted' && p.sessionID && !children.has(p.sessionID)) {
          await start(p.sessionID, 'compact');
        } else if (event.type === 'session.idle' && started.has(p.sessionID)) {
          const s = started.get(p.sessionID);
          started.delete(p.sessionID);
          await s;
          if (wanted('session.idle')) await hook('session.idle', p.sessionID, { reason: 'idle', ...(await transcript(p.sessionID)) });
        }
      } catch {}
    },
    'chat.message': async (input, output) => {
      try {
        const id = input.sessionID;
        if (!id || children.has(id)) return;
        await (started.get(id) || start(id, 'resume'));
        if (!wanted('chat.message')) return;
        const parts = output.parts || [];
        const prompt = parts
          .filter((x) => x.type === 'text' && !x.synthetic)
          .map((x) => x.text)
          .join('\\n');
        const context = await hook('chat.message', id, { prompt });
        const first = parts.find((x) => x.type === 'text');
        if (context && first) parts.push({ ...first, id: first.id + 'baton', text: context, synthetic: true });
      } catch {}
    },
    'experimental.chat.system.transform': async (input, output) => {
      try {
        const id = input.sessionID;
        if (!id || children.has(id)) return;
        await started.get(id);
        if (system.has(id)) output.system.push(system.get(id));
      } catch {}
    },
    'experimental.session.compacting': async (input, output) => {
      try {
        const id = input.sessionID;
        if (!id || children.has(id) || !wanted('session.compacting')) return;
        const context = await hook('session.compacting', id, { trigger: 'auto' });
        if (context) output.context.push(context);
      } catch {}
    },
  };
};
`;
