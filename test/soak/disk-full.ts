import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ObservatoryError } from '../../pipeline/core/index.ts';
import { listSnapshots, snapshotName, verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { publishWeek } from '../snapshot/sample-crawl.ts';
import { syntheticCrawl } from '../snapshot/synthetic-crawl.ts';

export interface DiskFullReport {
  /** Why the check could not run (mount refused), or null. */
  readonly skipped: string | null;
  /** The error the second publish failed with (`io: ...`), or what went wrong instead. */
  readonly error: string;
  readonly problems: string[];
}

const WEEK = 7 * 86_400_000;

const publish = (root: string, start: number, documents: number) =>
  publishWeek(root, start, syntheticCrawl(documents, 12, start));

/**
 * Publishes a small snapshot onto an 8 MiB tmpfs (2 MiB no longer holds a publish's working
 * files beside the snapshot), then one that cannot fit: the second must fail
 * with `io` and leave the first published, listed and verifiable, and nothing else visible.
 * Mounting needs root (CAP_SYS_ADMIN); without it the check reports why it was skipped.
 */
export async function diskFullCheck(): Promise<DiskFullReport> {
  const root = mkdtempSync(join(tmpdir(), 'soak-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', root], { stdio: 'pipe' });
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    return {
      skipped: `mount -t tmpfs refused: ${(error as Error).message.split('\n')[0]}`,
      error: '',
      problems: [],
    };
  }
  const problems: string[] = [];
  let error = 'the second publish succeeded';
  const first = Date.UTC(2026, 0, 5);
  try {
    await publish(root, first, 100);
    try {
      await publish(root, first + WEEK, 20_000);
    } catch (e) {
      error = e instanceof ObservatoryError ? `${e.code}: ${e.message}` : `not an ObservatoryError: ${e}`;
      if (!(e instanceof ObservatoryError && e.code === 'io')) problems.push(`wrong error: ${error}`);
    }
    const names = (await listSnapshots(root)).map((s) => s.name);
    if (names.join() !== snapshotName('weekly', first)) problems.push(`index lists ${names}`);
    await verifySnapshot(join(root, snapshotName('weekly', first))).catch((e: Error) =>
      problems.push(`the last good snapshot no longer verifies: ${e.message}`),
    );
    if (existsSync(join(root, snapshotName('weekly', first + WEEK))))
      problems.push('the failed snapshot is visible');
    return { skipped: null, error, problems };
  } finally {
    execFileSync('umount', [root]);
    rmSync(root, { recursive: true, force: true });
  }
}
