/**
 * Runs writeCdxjLines on a thread of its own for draftCdxj (warc-output.ts), which keeps its heap
 * small: the indexer inflates every record in JavaScript and, on the main heap, grew the process
 * by ~190 MiB.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { writeCdxjLines } from './cdxj-draft.ts';

const { archive, names, file } = workerData as { archive: string; names: string[]; file: string };
parentPort!.postMessage(await writeCdxjLines(archive, names, file));
