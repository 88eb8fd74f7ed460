import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ObservatoryError } from '../core/index.ts';
import { listSnapshots, MANIFEST_FILE, SNAPSHOT_SCHEMA_VERSION } from '../snapshot/index.ts';

/**
 * Refuses to crawl into a snapshots root whose newest snapshot was published in a newer schema than
 * this software's: a version rolled back after an upgrade would publish its own schema's folders
 * after the newer ones and compare them with data it cannot read (the lifetime benchmark's older
 * version did exactly that on the root its successor had published into). One manifest is read.
 */
export async function refuseNewerRoot(root: string): Promise<void> {
  const newest = (await listSnapshots(root)).at(-1);
  if (!newest) return;
  let version: unknown;
  try {
    version = (
      JSON.parse(await readFile(join(root, newest.name, MANIFEST_FILE), 'utf8')) as {
        schemaVersion?: unknown;
      }
    ).schemaVersion;
  } catch {
    return; // a missing or damaged manifest is the publish's to report, with what it compares
  }
  if (typeof version === 'number' && version > SNAPSHOT_SCHEMA_VERSION)
    throw new ObservatoryError(
      'invalid_input',
      `${root} holds ${newest.name}, published in snapshot schema ${version}, newer than this software's ` +
        `(${SNAPSHOT_SCHEMA_VERSION}): run the version that published it, or a newer one`,
    );
}
