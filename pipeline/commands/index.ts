import type { Command } from 'commander';

/** Every subcommand of `observatory`, one factory per file in this folder. */
export const commands: Array<() => Command> = [];
