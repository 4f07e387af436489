// A file baton owns whole (hooks.md): GitHub Copilot CLI's hooks format,
// `{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": CMD, "timeoutSec": N}]}}`,
// baton's plugin for opencode and Kilo (plugin-file.ts), or baton's extension for pi
// (pi-extension.ts). The agent reads every file of
// its folder, so baton never edits a user's file: it writes its own, rewrites it whole, and
// removes it at uninstall. Pure: text in, text out. CLI only.
import { fail } from '../core/errors.ts';
import { piExtensionEntries, renderPiExtension } from './pi-extension.ts';
import { pluginEntries, renderPlugin } from './plugin-file.ts';
import type { HookEntryRef } from './settings.ts';
import type { ProviderAdapter } from './types.ts';

interface OwnedHook {
  type?: unknown;
  bash?: unknown;
  timeoutSec?: unknown;
}

/** Parses an owned file; HK102 when it is not one baton can rewrite safely. */
function parseOwned(text: string, file: string): Record<string, OwnedHook[]> {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    j = null;
  }
  const hooks = j && typeof j === 'object' && !Array.isArray(j) ? (j as { hooks?: unknown }).hooks : undefined;
  const ok =
    hooks !== null &&
    typeof hooks === 'object' &&
    !Array.isArray(hooks) &&
    Object.values(hooks as object).every((v) => Array.isArray(v) && v.every((h) => h && typeof h === 'object'));
  if (!ok) fail('HK102', `${file} is not a hooks file baton wrote (fix or remove it by hand, then run the command again)`, { file });
  return hooks as Record<string, OwnedHook[]>;
}

/** Every command hook of an owned file, as the settings editor lists them (no offsets: the file is rewritten whole). */
export function ownedEntries(adapter: ProviderAdapter, text: string, file: string): HookEntryRef[] {
  if (adapter.ownedFile === 'plugin') return pluginEntries(text, file);
  if (adapter.ownedFile === 'pi-extension') return piExtensionEntries(text, file);
  const out: HookEntryRef[] = [];
  for (const [event, list] of Object.entries(parseOwned(text, file))) {
    list.forEach((h, i) => {
      if (h.type === 'command' && typeof h.bash === 'string') out.push({ event, group: i, hook: 0, command: h.bash, offset: 0, length: 0 });
    });
  }
  return out;
}

/** The whole file for these entries, in event order as given. */
export function renderOwned(adapter: ProviderAdapter, entries: readonly { event: string; command: string }[]): string {
  if (adapter.ownedFile === 'plugin') return renderPlugin(adapter, entries);
  if (adapter.ownedFile === 'pi-extension') return renderPiExtension(entries, adapter.timeoutValue);
  const hooks: Record<string, OwnedHook[]> = {};
  for (const e of entries) (hooks[e.event] ??= []).push({ type: 'command', bash: e.command, timeoutSec: adapter.timeoutValue });
  return `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
}
