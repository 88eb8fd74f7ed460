#!/usr/bin/env node
import { enableCompileCache } from 'node:module';
import type { Command } from 'commander';

/** The commands that crawl: their parse workers, fetches and DuckDB threads each allocate. */
const CRAWLING_COMMANDS = new Set(['snapshot', 'tick', 'demo']);

/**
 * glibc's malloc settings a crawling command runs under, each unless the operator set it. glibc
 * gives every thread that allocates an arena of its own (up to 8 per core) and keeps what is freed
 * inside an arena for that arena: a crawl's threads (parse workers, zlib's thread pool, DuckDB's)
 * leave hundreds of MiB there, so two arenas. glibc also raises its mmap threshold to the size of
 * each large block freed (up to 32 MiB), so after one large document every later buffer below that
 * size comes from an arena and stays there when freed: a fixed 4 MiB threshold gives large buffers
 * back to the system, and a 64 MiB trim threshold keeps the top of the heap from being returned
 * and grown again on every free (with glibc's 128 KiB a crawl ran 23% slower). docs/operating.md,
 * "Memory", has the measurements.
 */
const MALLOC_SETTINGS: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: String(4 * 1024 * 1024),
  MALLOC_TRIM_THRESHOLD_: String(64 * 1024 * 1024),
};

/**
 * glibc reads its settings once, when a process starts, so a crawling command started without
 * MALLOC_ARENA_MAX replaces itself (execve: the same pid, so signals, kill -9 and the pid lock see
 * one process) with itself under MALLOC_SETTINGS, before it loads the pipeline. A MALLOC_ARENA_MAX
 * already set, whatever its value, means the command runs as started.
 */
function withMallocSettings(argv: readonly string[]): void {
  if (process.platform !== 'linux' || process.env.MALLOC_ARENA_MAX !== undefined) return;
  if (!CRAWLING_COMMANDS.has(argv[2])) return;
  process.execve?.(process.execPath, [process.execPath, ...process.execArgv, ...argv.slice(1)], {
    ...MALLOC_SETTINGS,
    ...process.env,
  });
}

withMallocSettings(process.argv);
// every cron tick, worker and test starts this process: V8's code for the pipeline kept on disk
// (NODE_COMPILE_CACHE, else <tmpdir>/node-compile-cache; checked against each file's source) halves
// the start (--help: 1.2 -> 0.5 s of CPU). Before the imports below, which it is for.
enableCompileCache();

const { Command: CommandClass, CommanderError } = await import('commander');
const { commands, exitCodeFor, reportFailure } = await import('./commands/index.ts');
const { cutText, MESSAGE_LIMIT, SOFTWARE_VERSION } = await import('./core/index.ts');
const { duckDbMemoryLimit } = await import('./snapshot/index.ts');

// commander quotes what it was given whole: one line, cut like every other failure message
const usageErrors = {
  outputError: (text: string, write: (text: string) => void) =>
    write(`${cutText(text.trim().split('\n')[0], MESSAGE_LIMIT)}\n`),
};

/**
 * The `observatory` command. Options are parsed and validated here, once, into typed configs;
 * each subcommand's file (pipeline/commands/) hands its config to one stage's public entry.
 */
function buildProgram(): Command {
  const program = new CommandClass('observatory')
    .description('Linked Data Observatory: crawl the Web of Data, publish snapshots, build the portal')
    .version(SOFTWARE_VERSION)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput(usageErrors);
  for (const make of commands) {
    // addCommand does not pass the program's settings on: each command gets them itself
    program.addCommand(make().exitOverride().configureOutput(usageErrors));
  }
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    // a bad OBSERVATORY_DUCKDB_MEMORY_LIMIT stops the command now, not when it publishes after a crawl
    duckDbMemoryLimit();
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version "errors" are normal exits; usage errors were already printed on one line
      return error.exitCode === 0 ? 0 : 2;
    }
    reportFailure(error);
    return exitCodeFor(error);
  }
}

/**
 * An error thrown outside the command's own flow (an 'error' event nobody listens to, a promise
 * nobody awaits) is reported like any failure, in one coded line, instead of Node's stack trace.
 */
function failOutside(error: unknown): void {
  reportFailure(error);
  process.exit(exitCodeFor(error));
}
process.on('uncaughtException', failOutside);
process.on('unhandledRejection', failOutside);

process.exitCode = await main(process.argv);
