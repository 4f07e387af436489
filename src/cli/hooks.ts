// `baton hook`, `install`, `uninstall`, `status`, `verify`, `doctor`, `episode`, `demo` (hooks.md). Owned by the hooks work.
import type { Command } from 'commander';
import type { GlobalOptions } from './output.ts';

export function registerHookCommands(_program: Command, _globals: () => GlobalOptions): void {}
