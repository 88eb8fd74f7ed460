import type { Command } from 'commander';
import { defaultStrategy, liveStrategy } from '../schedule/index.ts';

/**
 * `--strategy` of the commands that move the live schedule on (`snapshot`, `tick`). The name is
 * checked before anything runs, so a typo or the `gold` oracle fails at once with its reason.
 */
export function addStrategyOption(command: Command): Command {
  return command.option(
    '--strategy <name>',
    `re-visit strategy that schedules the kernel documents: any of \`observatory evaluate\` but the gold oracle; dyldo keeps the observatory paper's levels (docs/strategies.md)`,
    defaultStrategy,
  );
}

/** The validated name of `--strategy`. */
export function strategyOption(o: { strategy: string }): string {
  return liveStrategy(o.strategy).name;
}
