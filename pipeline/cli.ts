#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { exitCodeFor, reportFailure } from './commands/failure.ts';
import { commands } from './commands/index.ts';
import { cutText, MESSAGE_LIMIT, SOFTWARE_VERSION } from './core/index.ts';
import { duckDbMemoryLimit } from './snapshot/index.ts';

// commander quotes what it was given whole: one line, cut like every other failure message
const usageErrors = {
  outputError: (text: string, write: (text: string) => void) =>
    write(`${cutText(text.trim().split('\n')[0], MESSAGE_LIMIT)}\n`),
};

/**
 * The `observatory` command. Options are parsed and validated here, once, into typed configs;
 * each subcommand's file (pipeline/commands/) hands its config to one stage's public entry.
 */
export function buildProgram(): Command {
  const program = new Command('observatory')
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

process.exitCode = await main(process.argv);
