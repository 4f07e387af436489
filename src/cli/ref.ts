// `baton ref ...` (refs.md). Owned by the refs work.
import type { Command } from 'commander';
import type { GlobalOptions } from './output.ts';

export function registerRefCommands(_program: Command, _globals: () => GlobalOptions): void {}
