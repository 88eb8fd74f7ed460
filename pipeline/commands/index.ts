import type { Command } from 'commander';
import { expandCommand } from './expand.ts';

/** Every subcommand of `observatory`, one factory per file in this folder. */
export const commands: Array<() => Command> = [expandCommand];
