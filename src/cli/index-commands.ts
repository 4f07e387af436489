// `baton index rebuild`, `baton search`, `baton project ...` (index.md). Owned by the index work.
import type { Command } from 'commander';
import type { GlobalOptions } from './output.ts';

export function registerIndexCommands(_program: Command, _globals: () => GlobalOptions): void {}
