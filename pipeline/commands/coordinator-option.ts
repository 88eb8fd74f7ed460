import type { Command } from 'commander';
import { type CrawlConfig, invalidInput } from '../core/index.ts';
import type { CrawlOptions, CrawlResult } from '../crawl/index.ts';
import { coordinatedCrawl } from '../distributed/index.ts';

/** `--coordinator`: a PostgreSQL URL (postgres:// or postgresql://), checked before anything connects. */
export function coordinatorUrl(value: string): string {
  // the host may be empty (a Unix socket given as ?host=/dir), which URL does not parse
  if (!/^postgres(ql)?:\/\/\S*$/.test(value)) {
    throw invalidInput('--coordinator', 'a PostgreSQL URL such as postgres://user@host/db', value);
  }
  return value;
}

/** Adds `--coordinator` to a command whose crawl the distributed mode can take over. */
export function addCoordinatorOption(command: Command): Command {
  return command.option(
    '--coordinator <url>',
    'crawl through this PostgreSQL database with `observatory worker`s (docs/distributed.md)',
  );
}

/**
 * The crawl config and crawl of a run's context under `--coordinator`: the config as given, and
 * without it the one-process crawl, with it the coordinated crawl (docs/distributed.md).
 */
export function coordinatedSetup(
  value: string | undefined,
  config: CrawlConfig,
): {
  readonly config: CrawlConfig;
  readonly crawl?: (options: CrawlOptions, name: string) => Promise<CrawlResult>;
} {
  if (value === undefined) return { config };
  const url = coordinatorUrl(value);
  return { config, crawl: coordinatedCrawl(url) };
}
