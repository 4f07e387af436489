// `baton session ...` (cli.md, Sessions). Parses arguments, calls the store, formats.
import type { Command } from 'commander';
import type { GlobalOptions } from './output.ts';

export function registerSessionCommands(_program: Command, _globals: () => GlobalOptions): void {}
