/**
 * Runs writeCdxjLines on a thread of its own for draftCdxj (warc-output.ts), which keeps its heap
 * small: the indexer inflates every record in JavaScript and, on the main heap, grew the process
 * by ~190 MiB.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ObservatoryError } from '../core/index.ts';
import { writeCdxjLines } from './cdxj-draft.ts';
import type { ArchiveSource } from './warc-output.ts';

const { archive, file } = workerData as { archive: ArchiveSource; file: string };
try {
  parentPort!.postMessage(await writeCdxjLines(archive, file));
} catch (error) {
  // an error crosses to the main thread as a plain Error: a coded one (a damaged published file) is sent as its code
  if (!(error instanceof ObservatoryError)) throw error;
  parentPort!.postMessage({ failed: { code: error.code, message: error.message } });
}
