/**
 * A parse worker (node:worker_threads): reads one document at a time with parseDocument and hashes
 * its graph, so that a document that takes long stalls this thread only, never the crawler's
 * fetches, and can be stopped by terminating the thread (read-document.ts).
 *
 * The worker never waits for the network: a remote JSON-LD context it has not been given ends the
 * attempt with the list of contexts needed, the main thread loads them and sends the document
 * again with them. Contexts are kept for later documents of the same source (one crawl's loader).
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { ObservatoryError } from '../core/index.ts';
import { graphHash } from './graph-hash.ts';
import { parseDocument } from './parse-document.ts';
import type { ContextAnswer, ReadReply, ReadRequest } from './read-protocol.ts';
import { encodeStatements, transferOf } from './statement-wire.ts';

let source = -1;
const contexts = new Map<string, ContextAnswer>();

async function read(request: ReadRequest): Promise<ReadReply> {
  const started = process.threadCpuUsage();
  if (request.source !== source) {
    source = request.source;
    contexts.clear();
  }
  for (const [url, answer] of request.contexts) contexts.set(url, answer);
  const needs = new Set<string>();
  const parsed = await parseDocument({
    body: request.body,
    contentType: request.contentType,
    documentUrl: request.documentUrl,
    maxContexts: request.maxContexts,
    loadContext: async (url) => {
      const answer = contexts.get(url);
      if (answer === undefined) {
        needs.add(url);
        throw new Error(`JSON-LD context ${url} is being loaded`);
      }
      if ('text' in answer) return answer.text;
      if ('refused' in answer) throw new ObservatoryError('context_limit', answer.refused);
      throw new Error(answer.failed);
    },
  });
  if (needs.size > 0) return { kind: 'needs', urls: [...needs], cpuMs: cpuMsSince(started) };
  const hash = parsed.statements.length > 0 ? await graphHash(parsed.statements) : null;
  return {
    kind: 'done',
    format: parsed.format,
    error: parsed.error,
    errorMessage: parsed.errorMessage,
    graphHash: hash,
    wire: encodeStatements(parsed.statements),
    cpuMs: cpuMsSince(started),
    heapBytes: getHeapStatistics().total_heap_size,
  };
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.threadCpuUsage(start);
  return (used.user + used.system) / 1000;
}

parentPort!.on('message', async (request: ReadRequest) => {
  const reply = await read(request);
  parentPort!.postMessage(reply, reply.kind === 'done' ? transferOf(reply.wire) : []);
});
// every module above is loaded: from now on a job's CPU time is the job's own
parentPort!.postMessage('ready');
