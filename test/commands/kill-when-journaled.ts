import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI } from './cli-process.ts';

/**
 * Runs `observatory ARGS` until `journal` holds a complete line for each of `urls`, then kills it
 * with -9: a real crawl in progress left behind. Waits for the journal, not for a time, so that load
 * cannot change what was journaled; the caller keeps some other document in flight meanwhile.
 */
export async function killWhenJournaled(
  args: readonly string[],
  journal: string,
  urls: readonly string[],
): Promise<void> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // complete lines only: a line being written when the poll reads it is not journaled yet
  const journaled = (url: string) =>
    readFileSync(journal, 'utf8')
      .split('\n')
      .slice(0, -1)
      .some((line) => line.includes(`"url":${JSON.stringify(url)}`));
  for (;;) {
    // read whether it has ended before reading the journal, so that the read sees all it ever wrote
    const ended = child.exitCode !== null || child.signalCode !== null;
    if (existsSync(journal) && urls.every(journaled)) break;
    // a crawl that ended can journal nothing more: fail now rather than poll until the test times out
    if (ended) throw new Error(`observatory ${args.join(' ')} ended before journaling ${urls.join(', ')}`);
    await sleep(20);
  }
  child.kill('SIGKILL');
  await exited;
}
