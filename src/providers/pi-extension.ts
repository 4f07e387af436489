// The pi extension baton owns (hooks.md, pi): `~/.pi/agent/extensions/baton.ts` or
// `.pi/extensions/baton.ts`, a TypeScript file pi loads into its own process. Its entries —
// one hook command per pi event — sit on one line, `const BATON_HOOKS = {...};`, which
// install, uninstall, status and verify read back; the rest is fixed code that must never
// block or break pi: each command runs through /bin/sh with the payload on stdin, is killed
// after the timeout, and any failure is one line to the user, never an exception into pi.
// Pure: text in, text out. CLI only.
import { fail } from '../core/errors.ts';
import type { HookEntryRef } from './settings.ts';

const ENTRIES_LINE = /^const BATON_HOOKS: Record<string, string> = (\{.*\});$/m;

/** Every entry of an owned extension file; HK102 when it is not one baton wrote. */
export function piExtensionEntries(text: string, file: string): HookEntryRef[] {
  const m = ENTRIES_LINE.exec(text);
  let hooks: unknown;
  try {
    hooks = m ? JSON.parse(m[1]) : undefined;
  } catch {}
  const ok = hooks !== null && typeof hooks === 'object' && !Array.isArray(hooks) && Object.values(hooks as object).every((v) => typeof v === 'string');
  if (!ok) fail('HK102', `${file} is not the pi extension baton wrote (fix or remove it by hand, then run the command again)`, { file });
  return Object.entries(hooks as Record<string, string>).map(([event, command]) => ({ event, group: 0, hook: 0, command, offset: 0, length: 0 }));
}

/** The whole extension for these entries (one command per pi event; a later one for the same event wins). */
export function renderPiExtension(entries: readonly { event: string; command: string }[], timeoutSec: number): string {
  const hooks: Record<string, string> = {};
  for (const e of entries) hooks[e.event] = e.command;
  return `${HEADER}
const BATON_HOOKS: Record<string, string> = ${JSON.stringify(hooks)};
const TIMEOUT_MS = ${timeoutSec * 1000};
${BODY}`;
}

const HEADER = `// baton's extension for pi, written by \`baton install pi\`. baton owns this file: install
// rewrites it whole and \`baton uninstall pi\` removes it, so an edit here is lost. It pipes
// pi's session events into \`baton hook pi\` (the commands below) and hands the context baton
// gives back to the model. It never blocks pi for longer than TIMEOUT_MS per event and never
// throws into it: whatever goes wrong is one line to the user, and pi goes on.
import { spawn } from "node:child_process";

// The command of each pi event (\`baton status\` and \`baton verify\` read this line).`;

const BODY = `
interface Answer {
  context?: string;
  block?: string;
  stop?: string;
  said: string[];
}

/** Runs one event's command with the payload on stdin; resolves (never rejects) within TIMEOUT_MS. */
function runHook(event: string, payload: Record<string, unknown>, cwd: string): Promise<Answer> {
  const answer: Answer = { said: [] };
  const command = BATON_HOOKS[event];
  if (!command) return Promise.resolve(answer);
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (timedOut: boolean): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (timedOut) answer.said.push("baton: pi: the " + event + " hook ran over " + TIMEOUT_MS + " ms and was stopped; pi goes on without it");
      else read(stdout, stderr, answer);
      resolve(answer);
    };
    try {
      const child = spawn("/bin/sh", ["-c", command], { cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
      timer = setTimeout(() => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {}
        done(true);
      }, TIMEOUT_MS);
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("error", (e: Error) => {
        answer.said.push("baton: pi: cannot run the " + event + " hook: " + e.message);
        done(false);
      });
      child.on("close", () => done(false));
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(payload));
    } catch (e) {
      answer.said.push("baton: pi: cannot run the " + event + " hook: " + String(e));
      done(false);
    }
  });
}

/** The hook's answer in Claude Code's shape: additionalContext, a block decision, or continue:false. */
function read(stdout: string, stderr: string, answer: Answer): void {
  for (const line of stderr.split("\\n")) if (line.trim()) answer.said.push(line);
  const text = stdout.trim();
  if (!text) return;
  try {
    const j = JSON.parse(text);
    const context = j?.hookSpecificOutput?.additionalContext;
    if (typeof context === "string" && context) answer.context = context;
    if (j?.decision === "block") answer.block = String(j.reason ?? "baton blocked this prompt");
    if (j?.continue === false) answer.stop = String(j.stopReason ?? "baton asked pi to stop");
  } catch {
    answer.said.push("baton: pi: the hook printed something that is not JSON; ignored");
  }
}

/** Lines for the user: a notice in pi's UI, else (print mode) stderr. */
function tell(ctx: any, lines: string[]): void {
  for (const line of lines) {
    try {
      if (ctx?.hasUI) ctx.ui.notify(line, "warning");
      else process.stderr.write(line + "\\n");
    } catch {}
  }
}

export default function baton(pi: any): void {
  // Contexts waiting for the next prompt: pi lets an extension add to the conversation from
  // before_agent_start, so what the start (or a compaction) gave is said with the next prompt.
  let pending: string[] = [];

  const session = (ctx: any): Record<string, unknown> => ({
    session_id: ctx.sessionManager.getSessionId(),
    cwd: ctx.cwd,
    transcript_path: ctx.sessionManager.getSessionFile() ?? null,
  });
  const guarded =
    (what: string, fn: (event: any, ctx: any) => Promise<unknown>) =>
    async (event: any, ctx: any): Promise<any> => {
      try {
        return await fn(event, ctx);
      } catch (e) {
        tell(ctx, ["baton: pi: " + what + ": " + (e instanceof Error ? e.message : String(e))]);
        return undefined;
      }
    };

  const start = async (source: string, ctx: any): Promise<void> => {
    const a = await runHook("session_start", { hook_event_name: "session_start", ...session(ctx), source }, ctx.cwd);
    tell(ctx, a.said);
    if (a.context) pending.push(a.context);
    if (a.stop) {
      tell(ctx, [a.stop]);
      if (!ctx.isIdle()) ctx.abort();
    }
  };

  pi.on(
    "session_start",
    guarded("session_start", async (event, ctx) => {
      // An extension reload is the same session going on: no new start.
      if (event.reason === "reload") return;
      // pi reports a start that loads a saved conversation (pi -c, --session) as "startup":
      // baton calls it resume when the session already holds messages.
      const resumed = event.reason === "startup" && ctx.sessionManager.getEntries().some((e: any) => e?.type === "message");
      await start(resumed ? "resume" : event.reason, ctx);
    }),
  );

  pi.on(
    "input",
    guarded("input", async (event, ctx) => {
      // A message another extension sends is not the user's prompt.
      if (event.source === "extension") return undefined;
      const a = await runHook("input", { hook_event_name: "input", ...session(ctx), prompt: event.text }, ctx.cwd);
      tell(ctx, a.said);
      if (a.block) {
        tell(ctx, [a.block]);
        return { action: "handled" };
      }
      if (a.context) pending.push(a.context);
      return undefined;
    }),
  );

  pi.on(
    "before_agent_start",
    guarded("before_agent_start", async () => {
      if (pending.length === 0) return undefined;
      const content = pending.join("\\n\\n");
      pending = [];
      return { message: { customType: "baton", content, display: false } };
    }),
  );

  pi.on(
    "session_before_compact",
    guarded("session_before_compact", async (event, ctx) => {
      // pi does not say who asked: instructions come only with a /compact, so a bare one reads as auto.
      const trigger = typeof event.customInstructions === "string" ? "manual" : "auto";
      const a = await runHook("session_before_compact", { hook_event_name: "session_before_compact", ...session(ctx), trigger }, ctx.cwd);
      tell(ctx, a.said);
      return undefined; // never cancels the compaction
    }),
  );

  // The summary replaced the conversation, and the context baton gave with it: start again.
  pi.on(
    "session_compact",
    guarded("session_compact", async (_event, ctx) => {
      await start("compact", ctx);
    }),
  );

  // The end of pi's answer to a prompt (all its turns and tool calls): baton's turn end, where
  // the transcript aspect reads what pi appended to the session file. Never awaited by pi's
  // loop longer than TIMEOUT_MS; it gives the model nothing.
  pi.on(
    "agent_end",
    guarded("agent_end", async (_event, ctx) => {
      if (!BATON_HOOKS.agent_end) return;
      const a = await runHook("agent_end", { hook_event_name: "agent_end", ...session(ctx) }, ctx.cwd);
      tell(ctx, a.said);
    }),
  );

  pi.on(
    "session_shutdown",
    guarded("session_shutdown", async (event, ctx) => {
      if (event.reason === "reload") return;
      pending = [];
      const a = await runHook("session_shutdown", { hook_event_name: "session_shutdown", ...session(ctx), reason: event.reason }, ctx.cwd);
      tell(ctx, a.said);
    }),
  );
}
`;
