import { hostname } from 'node:os';
import { Command } from 'commander';
import { createLogger, invalidInput, parseDuration, systemClock } from '../core/index.ts';
import { runWorker } from '../distributed/index.ts';
import { coordinatorUrl } from './coordinator-option.ts';
import { stopSignal } from './crawl-options.ts';

interface WorkerCliOptions {
  coordinator: string;
  lease: string;
  id?: string;
  log?: string;
  logLevel: string;
}

/** `observatory worker`: crawls the PLDs it leases from the coordinator's crawls until SIGINT/SIGTERM. */
export function workerCommand(): Command {
  return new Command('worker')
    .description(
      'crawl for the coordinator: lease PLDs of its crawls, fetch, parse and record (docs/distributed.md)',
    )
    .requiredOption(
      '--coordinator <url>',
      'the PostgreSQL database that coordinates the crawl (postgres://...)',
    )
    .option(
      '--lease <duration>',
      'how long a PLD lease lasts unless renewed (a dead worker is replaced after it)',
      '30s',
    )
    .option('--id <name>', 'this worker in the leases (default: host:pid)')
    .option('--log <file>', 'write structured JSON logs to this file (default: stderr)')
    .option('--log-level <level>', 'log level: fatal, error, warn, info, debug, silent', 'warn')
    .action(async (o: WorkerCliOptions) => {
      const coordinator = coordinatorUrl(o.coordinator);
      const leaseMs = parseDuration(o.lease, '--lease');
      if (leaseMs < 1000) throw invalidInput('--lease', 'a duration of at least 1s', o.lease);
      const id = o.id ?? `${hostname()}:${process.pid}`;
      const recorded = await runWorker({
        coordinator,
        id,
        leaseMs,
        clock: systemClock,
        logger: createLogger({ level: o.logLevel, file: o.log }),
        signal: stopSignal(),
      });
      process.stdout.write(`worker ${id} stopped: ${recorded} URLs recorded\n`);
    });
}
