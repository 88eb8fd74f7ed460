import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type CrawlConfig, ObservatoryError, type ParseResult } from '../core/index.ts';
import type { DocumentInput } from './parse-document.ts';
import type { ContextAnswer, ReadReply, ReadRequest } from './read-protocol.ts';
import { decodeStatements } from './statement-wire.ts';
import type { ContextLoader } from './syntax-parser.ts';

/** What reading one document may cost. */
export interface ReadLimits {
  /** CPU milliseconds of the parse worker for parsing and hashing the document, all attempts together. */
  readonly cpuBudgetMs: number;
  /** Distinct remote JSON-LD contexts the document may name. */
  readonly maxContexts: number;
  /** MiB of V8 old-generation heap of the worker; a document needing more is `too_complex`. */
  readonly heapMb: number;
}

/** The limits a crawl's config sets on reading one document: the crawl's and reparse's alike. */
export function readLimits(
  config: Pick<CrawlConfig, 'parseBudgetMs' | 'maxContextsPerDocument' | 'parseMemoryMb'>,
): ReadLimits {
  return {
    cpuBudgetMs: config.parseBudgetMs,
    maxContexts: config.maxContextsPerDocument,
    heapMb: config.parseMemoryMb,
  };
}

/** A document read off the main thread: what parseDocument gives, plus its graph hash. */
export interface ReadResult extends ParseResult {
  /** graphHash of the statements; null when there are none. */
  readonly graphHash: string | null;
}

/** A worker's answer; or its CPU budget ran out; or the worker died (crash, out of memory). */
type Outcome =
  | ReadReply
  | { readonly kind: 'over_budget' }
  | { readonly kind: 'died'; readonly code: 'too_complex' | 'parse'; readonly message: string };

interface Job {
  readonly request: ReadRequest;
  readonly budgetMs: number;
  readonly settle: (outcome: Outcome) => void;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

const WORKER = new URL('./read-worker.ts', import.meta.url);
const MIB = 1024 * 1024;
/** A parse worker's young generation: under Node's 16 MiB allowance past the heap limit (spawn). */
const YOUNG_GENERATION_MB = 8;

/**
 * Parse workers, as many as the machine has cores, each reading one document at a time, each with
 * a heap limit, and replaced once its heap has grown past half of it. A job's
 * CPU time is watched from here (worker.cpuUsage, polled): past its budget the worker is
 * terminated, which stops even a parser that never yields, and the document is `too_complex`.
 * CPU time rather than wall-clock time, so that a loaded machine does not change the verdict, and
 * time a job waits in the queue or for a context does not count. Idle workers do not keep the
 * process alive.
 */
class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly size: number;
  private readonly heapMb: number;

  constructor(size: number, heapMb: number) {
    this.size = size;
    this.heapMb = heapMb;
  }

  /**
   * Ends the workers that are not reading a document, so that their heaps go back to the system;
   * workers start again when documents come. A worker still starting may be about to take a
   * queued job, and is kept.
   */
  releaseIdle(): void {
    for (const slot of [...this.slots]) {
      if (!slot.ready || slot.job !== null) continue;
      this.retire(slot);
      void slot.worker.terminate();
    }
  }

  run(request: ReadRequest, budgetMs: number): Promise<Outcome> {
    return new Promise((settle) => {
      this.queue.push({ request, budgetMs, settle });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.ready && slot.job === null) this.start(slot, this.queue.shift()!);
    }
    while (this.queue.length > this.slots.filter((s) => !s.ready).length && this.slots.length < this.size) {
      this.spawn();
    }
  }

  /** Takes a slot out of service at once (a terminating worker must not get the next job). */
  private retire(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
  }

  private spawn(): void {
    workersStarted++;
    // a heap limit per worker: V8 grows an isolate's heap lazily towards the machine's memory, and
    // two workers that read large documents held gigabytes of garbage. The young generation is
    // kept small because past the limit Node lets the last collection exceed it by only 16 MiB
    // before ending the worker; a scavenge that promotes more (V8's default young generation of
    // a worker holds ~48 MiB) aborts the whole process instead (nodejs/node#47224)
    const worker = new Worker(WORKER, {
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    const slot: Slot = { worker, ready: false, job: null, timer: null };
    this.slots.push(slot);
    slot.worker.on('message', (message: ReadReply | 'ready') => {
      if (message === 'ready') {
        slot.ready = true;
        slot.worker.unref();
      } else {
        this.finish(slot, message);
        // V8 keeps a heap it grew for a large document; a fresh worker starts small
        if (message.kind === 'done' && message.heapBytes > (this.heapMb * MIB) / 2) {
          this.retire(slot);
          void slot.worker.terminate();
        }
      }
      this.dispatch();
    });
    slot.worker.on('error', (error: Error & { code?: string }) => {
      this.retire(slot);
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.finish(slot, {
        kind: 'died',
        code: outOfMemory ? 'too_complex' : 'parse',
        message: outOfMemory ? 'parsing ran out of memory' : `the parser crashed: ${error.message}`,
      });
    });
    slot.worker.on('exit', () => {
      this.retire(slot);
      this.finish(slot, { kind: 'died', code: 'parse', message: 'the parse worker exited' });
      this.dispatch();
    });
  }

  private async start(slot: Slot, job: Job): Promise<void> {
    slot.job = job;
    slot.worker.ref();
    const base = await slot.worker.cpuUsage().catch(() => null);
    // a worker that died meanwhile has settled the job already (its exit handler)
    if (base === null || slot.job !== job) return;
    // the worker's copy of the body is made now and moved to it, so a document queued holds none
    const body = new Uint8Array(job.request.body);
    slot.worker.postMessage({ ...job.request, body }, [body.buffer]);
    // a tenth of the budget between looks: the overrun is at most that, plus one poll's latency
    slot.timer = setInterval(
      async () => {
        const used = await slot.worker.cpuUsage(base).catch(() => null);
        if (used === null || slot.job !== job || (used.user + used.system) / 1000 <= job.budgetMs) return;
        this.finish(slot, { kind: 'over_budget' });
        this.retire(slot);
        void slot.worker.terminate();
        this.dispatch();
      },
      Math.min(1000, Math.max(10, job.budgetMs / 10)),
    );
  }

  private finish(slot: Slot, outcome: Outcome): void {
    const job = slot.job;
    if (job === null) return;
    slot.job = null;
    if (slot.timer) clearInterval(slot.timer);
    slot.timer = null;
    slot.worker.unref();
    job.settle(outcome);
  }
}

let workersStarted = 0;

/** Parse workers this process has started (first ones, and replacements of ended ones). */
export function parseWorkersStarted(): number {
  return workersStarted;
}

/** One pool per worker heap limit (a process normally has one: its crawl config's). */
const pools = new Map<number, ParsePool>();

/** Ends the idle parse workers (see ParsePool.releaseIdle): a crawl's end, before its publish. */
export function releaseParseWorkers(): void {
  for (const pool of pools.values()) pool.releaseIdle();
}
const sources = new WeakMap<ContextLoader, number>();
let lastSource = 0;

/** Which loader answered a context: parse workers keep one source's answers at a time. */
function sourceOf(loadContext: ContextLoader | undefined): number {
  if (!loadContext) return 0;
  let id = sources.get(loadContext);
  if (id === undefined) {
    id = ++lastSource;
    sources.set(loadContext, id);
  }
  return id;
}

async function answer(loadContext: ContextLoader | undefined, url: string): Promise<ContextAnswer> {
  if (!loadContext) return { failed: `remote JSON-LD context ${url} needs a context loader, none was given` };
  try {
    return { text: await loadContext(url) };
  } catch (error) {
    if (error instanceof ObservatoryError && error.code === 'context_limit')
      return { refused: error.message };
    return { failed: (error as Error).message };
  }
}

/**
 * Reads a document as parseDocument does, and hashes its graph, in a parse worker: the main
 * thread stays free for the crawl's fetches, and the work is bounded by `limits.cpuBudgetMs` of
 * CPU time (`too_complex` past it). Remote JSON-LD contexts are loaded here with `loadContext`
 * when a worker asks for them, and the document is read again with them; every attempt counts
 * against the same budget.
 */
export async function readDocument(input: DocumentInput, limits: ReadLimits): Promise<ReadResult> {
  let pool = pools.get(limits.heapMb);
  if (!pool) {
    pool = new ParsePool(availableParallelism(), limits.heapMb);
    pools.set(limits.heapMb, pool);
  }
  const source = sourceOf(input.loadContext);
  const contexts: [string, ContextAnswer][] = [];
  let spentMs = 0;
  for (;;) {
    const outcome =
      spentMs >= limits.cpuBudgetMs
        ? null
        : await pool.run(
            {
              body: input.body,
              contentType: input.contentType,
              documentUrl: input.documentUrl,
              maxContexts: limits.maxContexts,
              source,
              contexts,
            },
            limits.cpuBudgetMs - spentMs,
          );
    if (outcome === null || outcome.kind === 'over_budget') {
      const errorMessage = `parsing and hashing took more than ${limits.cpuBudgetMs} ms of CPU time; stopped`;
      return { format: null, statements: [], error: 'too_complex', errorMessage, graphHash: null };
    }
    if (outcome.kind === 'died') {
      return {
        format: null,
        statements: [],
        error: outcome.code,
        errorMessage: outcome.message,
        graphHash: null,
      };
    }
    spentMs += outcome.cpuMs;
    if (outcome.kind === 'done') {
      const { format, error, errorMessage, graphHash } = outcome;
      return { format, error, errorMessage, graphHash, statements: decodeStatements(outcome.wire) };
    }
    for (const url of outcome.urls) contexts.push([url, await answer(input.loadContext, url)]);
  }
}
