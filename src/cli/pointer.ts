// `baton pointer ...` (pointer.md). Owned by the pointer work.
import type { Command } from 'commander';
import type { GlobalOptions } from './output.ts';

export function registerPointerCommands(_program: Command, _globals: () => GlobalOptions): void {}
