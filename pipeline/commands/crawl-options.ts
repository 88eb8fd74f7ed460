import { type Command, Option } from 'commander';
import type { Clock, CrawlConfig, Logger } from '../core/index.ts';
import {
  CRAWL_OPTION_ENTRIES,
  clockStartingAt,
  crawlConfig,
  createLogger,
  flagName,
  INSTANT_FORMS,
  parseInstant,
  systemClock,
} from '../core/index.ts';

/**
 * The options every crawling command shares, as commander hands them over: the crawl options'
 * (core/crawl-options.ts) under their flags' attribute names (`--max-links` as `maxLinks`), text
 * until crawlSetup reads them; absent ones are their defaults.
 */
export interface CrawlCliOptions {
  readonly [attribute: string]: unknown;
  /** With --profile (only the commands that have it). */
  profile?: CrawlProfileName;
  now?: string;
  log?: string;
  logLevel: string;
}

/**
 * Named bundles of crawl options, as the command line would give them (commander's option names).
 * A profile sets each of its options that the command has and the command line leaves at its
 * default; an option given explicitly wins. The profile's name goes into the config, so manifests
 * record it beside the values it set.
 */
export const CRAWL_PROFILES = {
  /**
   * The crawl as the DyLDO paper configured LDSpider (docs/crawling.md, "The ldspider profile"):
   * per-PLD queues polled round-robin, rounds = hops (expand), every document downloaded in full,
   * and the paper's politeness and limits pinned, whatever our defaults become.
   */
  ldspider: {
    policy: 'round-robin',
    roundEnd: 'ldspider',
    rounds: 'hops',
    conditional: false,
    concurrency: '64',
    delay: '2',
    perPld: '1',
    timeout: '120s',
  },
} as const satisfies Record<string, Readonly<Record<string, string | boolean>>>;

export type CrawlProfileName = keyof typeof CRAWL_PROFILES;

/** Adds `--profile` (and `--conditional`, to take back a profile's `--no-conditional`) to a crawling command. */
export function addProfileOption(command: Command): Command {
  return command
    .addOption(
      new Option('--profile <name>', 'start from a named bundle of options (explicit options win)').choices(
        Object.keys(CRAWL_PROFILES),
      ),
    )
    .option('--conditional', 're-visits ask with validators (the default; overrides a --profile)');
}

/**
 * The options with `o.profile`'s bundle applied: each option of the bundle that `command` has and
 * the command line did not give takes the profile's value.
 */
export function withProfile<T extends CrawlCliOptions>(o: T, command: Command): T {
  if (o.profile === undefined) return o;
  const applied: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(CRAWL_PROFILES[o.profile])) {
    const known = command.options.some((option) => option.attributeName() === key);
    // no source: the option has no default (`--conditional` beside `--no-conditional`) and was not given
    const source = command.getOptionValueSource(key);
    if (known && (source === undefined || source === 'default')) applied[key] = value;
  }
  return { ...o, ...applied };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The crawl options that have a flag, each with commander's Option for it. */
const CRAWL_FLAGS = CRAWL_OPTION_ENTRIES.flatMap(([key, option]) => {
  const flag = option.flag;
  if (!flag) return [];
  const cli = new Option(flag.flags, flag.help ?? option.what);
  if (flag.choices) cli.choices(flag.choices);
  if (flag.repeated) cli.argParser(collect).default([]);
  else if (flag.shown) cli.default(flag.shown(option.default));
  else if (!cli.negate && !cli.required) cli.default(false);
  return [{ key, option, cli }];
});

/** Adds the crawler's options (politeness, limits, routing, clock, logs) to a command. */
export function addCrawlOptions(command: Command): Command {
  for (const { cli } of CRAWL_FLAGS) command.addOption(cli);
  return command
    .option(
      '--now <iso>',
      `logical start time of this run (a virtual clock), from 2000 to 2099: ${INSTANT_FORMS}`,
    )
    .option('--log <file>', 'write structured JSON logs to this file (default: stderr)')
    .option('--log-level <level>', 'log level: fatal, error, warn, info, debug, silent', 'warn');
}

/** Everything a crawling command needs, validated once. */
export interface CrawlSetup {
  readonly config: CrawlConfig;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Validates the shared crawl options into a frozen config, a clock and a logger. */
export function crawlSetup(o: CrawlCliOptions): CrawlSetup {
  const given: Record<string, unknown> = {};
  for (const { key, option, cli } of CRAWL_FLAGS) {
    const value = o[cli.attributeName()];
    if (value === undefined) continue;
    given[key] = option.flag?.parse ? option.flag.parse(value as never, flagName(option)!) : value;
  }
  const config = crawlConfig({ ...given, ...(o.profile ? { profile: o.profile } : {}) });
  // an empty --now (an unset variable in a crontab) is bad input, not the wall clock
  const clock = o.now !== undefined ? clockStartingAt(parseInstant(o.now)) : systemClock;
  const logger = createLogger({ level: o.logLevel, file: o.log });
  return { config, clock, logger };
}

/** An AbortSignal that fires on the first SIGINT/SIGTERM, so a crawl stops cleanly and can resume. */
export function stopSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = (sig: string) => {
    process.stderr.write(
      `\nobservatory: ${sig}: finishing fetches in flight (again to quit now); run the same command to resume\n`,
    );
    controller.abort();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return controller.signal;
}
