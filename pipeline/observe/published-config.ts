import { join } from 'node:path';
import type { SnapshotKind } from '../core/index.ts';
import { readManifest } from '../snapshot/index.ts';

/** What names a crawl's publication: its folder, kind and exact times (ms). */
export interface PublishedRun {
  readonly name: string;
  readonly kind: SnapshotKind;
  readonly startedAt: number;
  readonly endedAt?: number;
}

/**
 * The config this very run was published with, when a publish of it already put its folder in
 * place (the folder's manifest has the run's kind and exact start and end) and was killed before
 * the run's folder was removed or the folder listed; else null. Publishing again with it gives the same input, so the
 * folder is kept and completed (listed, linked); the config of the process resuming it, after an
 * upgrade or with other options, made the input differ and the publish refuse the name forever
 * (found by the lifetime benchmark: `snapshot 2026-01-19 is already published ... from a different
 * crawl` at every weekly run after the upgrade).
 */
export async function publishedConfig(root: string, run: PublishedRun): Promise<object | null> {
  try {
    const manifest = await readManifest(join(root, run.name));
    const same =
      manifest.kind === run.kind &&
      Date.parse(manifest.startedAt) === run.startedAt &&
      Date.parse(manifest.endedAt) === run.endedAt;
    return same && typeof manifest.config === 'object' && manifest.config !== null ? manifest.config : null;
  } catch {
    return null; // not published (or not readable: the publish says why)
  }
}
