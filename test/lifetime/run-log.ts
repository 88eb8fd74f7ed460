import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** A structured-log line as the `observatory` commands write them with `--log` (pino, JSON). */
export interface LogLine {
  readonly time: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** The size of a log file now (0 when it does not exist yet): where the next run's lines start. */
export function logOffset(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The lines appended to `file` since `offset` (a torn last line, from a SIGKILL, is left out). */
export function logLinesSince(file: string, offset: number): LogLine[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = statSync(file).size;
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    readSync(fd, buffer, 0, buffer.length, offset);
    const lines: LogLine[] = [];
    for (const text of buffer.toString('utf8').split('\n')) {
      if (!text.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(text) as LogLine);
      } catch {
        // torn by a kill
      }
    }
    return lines;
  } finally {
    closeSync(fd);
  }
}

/** Crawl and publish wall time of one run from its log lines (ms; null where the run did not get there). */
export function crawlAndPublishMs(
  lines: readonly LogLine[],
  startedAt: number,
): { crawlMs: number | null; publishMs: number | null } {
  const finished = lines.find((l) => l.msg === 'crawl finished');
  const published = lines.find((l) => l.msg === 'snapshot published');
  return {
    crawlMs: finished ? finished.time - startedAt : null,
    publishMs: finished && published ? published.time - finished.time : null,
  };
}
