/**
 * The crawl against its politeness bound on a quiet machine and beside CPU hogs (issue #35). A
 * kernel shaped like the observatory paper's (652 PLDs, the largest holding ~8% of the URIs, 58% of
 * PLDs with one URI, ~10,000 documents) is crawled from a simulated Web in its own process (on
 * 127.0.0.1), with the delay scaled 40x down (2 s -> 50 ms) and the answer times to 1%, as a
 * weekly snapshot crawls it: one round, a WARC archive, a journal. Each run crawls it once per
 * policy (`longest-first`, the default, and `round-robin`; which goes first alternates), first on
 * the machine as it is, then beside one CPU hog per core (child processes spinning).
 *
 * Per crawl: makespan against the service-inclusive bound (max over PLDs of requests x delay +
 * the time its answers took: the gate counts the delay from the answer), politeness violations at
 * the server (request starts of one PLD less than the delay apart: must be 0), the event loop's
 * delay, the machine's load average; and for the bound-setting PLDs (within 3% of that bound)
 * where their idle time beyond the delay went, by cause (crawl/idle-gaps.ts), with the time before
 * their first request and after their last answer (head, tail). makespan - bound = head + tail -
 * delay + idle - early, per PLD.
 *
 * BENCH_MAKESPAN_RUNS (default 3) runs per machine state; BENCH_MAKESPAN_STATES (default
 * `quiet,hogs`) which states.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  crawlConfig,
  POLICY_NAMES,
  type PolicyName,
  parseResolveRule,
  silentLogger,
  systemClock,
  urlPld,
} from '../../pipeline/core/index.ts';
import {
  createCrawlTools,
  GAP_CAUSES,
  IdleGapRecorder,
  type PldTimeline,
  runCrawl,
} from '../../pipeline/crawl/index.ts';
import { clearRequestLog, requestLog, simTruth, startSimWebProcess } from '../commands/cli-process.ts';
import { politenessViolations } from '../crawl/sim-crawl.ts';

const WEB_DOCS = 11_800;
const PLDS = 652;
/** Kernel URIs taken from one PLD at most: 8% of the ~10,000 the kernel holds, as the paper's largest PLD. */
const PER_PLD = 800;
const LATENCY_SCALE = 0.01;
const DELAY_MS = 50;
/** PLDs whose bound is within this share of the largest set it too. */
const NEAR_BOUND = 0.03;
const RUNS = Number(process.env.BENCH_MAKESPAN_RUNS ?? 3);
const STATES = (process.env.BENCH_MAKESPAN_STATES ?? 'quiet,hogs').split(',') as ('quiet' | 'hogs')[];

interface Bounder {
  readonly pld: string;
  readonly timeline: PldTimeline;
}

interface Crawl {
  readonly state: string;
  readonly run: number;
  readonly policy: PolicyName;
  readonly documents: number;
  readonly makespanMs: number;
  readonly boundMs: number;
  readonly violations: number;
  readonly loopP99Ms: number;
  readonly load: number;
  readonly bounders: readonly Bounder[];
}

/** The kernel: every document URI of the Web, at most PER_PLD of each PLD. */
async function kernelOf(port: number): Promise<string[]> {
  const taken = new Map<string, number>();
  const kernel: string[] = [];
  for (const line of await simTruth(port)) {
    if (line.kind !== 'document') continue;
    const pld = urlPld(line.uri);
    const n = taken.get(pld) ?? 0;
    if (n >= PER_PLD) continue;
    taken.set(pld, n + 1);
    kernel.push(line.uri);
  }
  return kernel;
}

function shapeOf(kernel: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const uri of kernel) {
    const pld = urlPld(uri);
    counts.set(pld, (counts.get(pld) ?? 0) + 1);
  }
  const sizes = [...counts.values()];
  const top = Math.max(...sizes);
  const singles = sizes.filter((n) => n === 1).length;
  return `${kernel.length} documents on ${counts.size} PLDs, the largest ${((100 * top) / kernel.length).toFixed(1)}% of them, ${((100 * singles) / counts.size).toFixed(0)}% of PLDs with one`;
}

async function crawlOnce(
  port: number,
  kernel: readonly string[],
  policy: PolicyName,
  state: string,
  run: number,
): Promise<Crawl> {
  const config = crawlConfig({
    resolve: [parseResolveRule(`*=127.0.0.1:${port}`)],
    allowPrivate: true,
    delayMs: DELAY_MS,
    timeoutMs: 10_000,
    policy,
  });
  const dir = await mkdtemp(join(tmpdir(), `makespan-bench-${policy}-`));
  await clearRequestLog(port);
  const recorder = new IdleGapRecorder(config.concurrency);
  const tools = createCrawlTools(
    config,
    systemClock,
    { dir: join(dir, 'warc'), prefix: 'bench' },
    [],
    recorder,
  );
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const start = recorder.mark();
  const result = await runCrawl({
    plan: {
      seeds: kernel,
      maxDepth: 0,
      maxRounds: 1,
      maxDocuments: Number.POSITIVE_INFINITY,
      segmentFor: () => 'kernel',
    },
    config,
    fetcher: tools.fetcher,
    loadContext: tools.loadContext,
    dir: join(dir, 'crawl'),
    clock: systemClock,
    logger: silentLogger,
    archive: tools.archive,
    observer: recorder,
  });
  const end = recorder.mark();
  loop.disable();
  const load = loadavg()[0];
  const bounds = [...tools.web.stats()].map(
    ([pld, stats]) => [pld, stats.requests * tools.fetcher.delayFor(pld) + stats.serviceMs] as const,
  );
  const boundMs = Math.max(...bounds.map(([, b]) => b));
  const bounders = bounds
    .filter(([, b]) => b >= (1 - NEAR_BOUND) * boundMs)
    .sort((a, b) => b[1] - a[1])
    .map(([pld]) => ({ pld, timeline: recorder.timeline(pld, tools.fetcher.delayFor(pld), start, end) }));
  await tools.close();
  const violations = politenessViolations(await requestLog(port), DELAY_MS).length;
  await rm(dir, { recursive: true, force: true });
  return {
    state,
    run,
    policy,
    documents: result.stats.documents,
    makespanMs: end - start,
    boundMs,
    violations,
    loopP99Ms: loop.percentile(99) / 1e6,
    load,
    bounders,
  };
}

/** One child process per core spinning on the CPU; stop() ends them. */
/**
 * One spinning child process per core. stop() says what share of the wall time each hog ran (its
 * user + system CPU from /proc over its lifetime): near 1 shows the machine was busy all along.
 */
function startHogs(): { stop(): number[] } {
  const started = performance.now();
  const hogs: ChildProcess[] = [];
  for (let i = 0; i < availableParallelism(); i++) {
    hogs.push(spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
  }
  return {
    stop() {
      const wallS = (performance.now() - started) / 1000;
      const shares = hogs.map((hog) => {
        // /proc/<pid>/stat: utime and stime are the 14th and 15th fields, in clock ticks (100 a second)
        const fields = readFileSync(`/proc/${hog.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return (Number(fields[11]) + Number(fields[12])) / 100 / wallS;
      });
      for (const hog of hogs) hog.kill('SIGKILL');
      return shares;
    },
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const idleOf = (t: PldTimeline) => GAP_CAUSES.reduce((sum, c) => sum + t.idleMs[c], 0);

function print(crawls: readonly Crawl[]): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    '| machine | run | policy | documents | makespan | service-inclusive bound | makespan / bound | ahead of round-robin | violations | loop delay p99 | load (1 min) |',
  );
  out('| --- | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |');
  for (const c of crawls) {
    const other = crawls.find((o) => o.state === c.state && o.run === c.run && o.policy !== c.policy);
    const ahead =
      c.policy === 'longest-first' && other ? (c.makespanMs < other.makespanMs ? 'yes' : 'NO') : '';
    out(
      `| ${c.state} | ${c.run} | ${c.policy} | ${c.documents} | ${seconds(c.makespanMs)} s | ${seconds(c.boundMs)} s | ${(c.makespanMs / c.boundMs).toFixed(3)} | ${ahead} | ${c.violations} | ${c.loopP99Ms.toFixed(1)} ms | ${c.load.toFixed(2)} |`,
    );
  }
  out(
    '\nIdle time of the bound-setting PLDs beyond the delay, by cause (ms; idle-gaps.ts says what each covers):\n',
  );
  out(
    `| machine | run | policy | PLD | requests | service | head | tail | early | idle | ${GAP_CAUSES.join(' | ')} |`,
  );
  out(
    `| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |${' ---: |'.repeat(GAP_CAUSES.length)}`,
  );
  for (const c of crawls) {
    for (const { pld, timeline: t } of c.bounders) {
      const causes = GAP_CAUSES.map((cause) => t.idleMs[cause].toFixed(0)).join(' | ');
      out(
        `| ${c.state} | ${c.run} | ${c.policy} | ${pld} | ${t.requests} | ${t.serviceMs.toFixed(0)} | ${t.headMs.toFixed(0)} | ${t.tailMs.toFixed(0)} | ${t.earlyMs.toFixed(0)} | ${idleOf(t).toFixed(0)} | ${causes} |`,
      );
    }
  }
}

/** Runs the makespan benchmark and prints its tables. */
export default async function (): Promise<void> {
  const server = await startSimWebProcess([
    ...['--port', '0', '--docs', String(WEB_DOCS), '--plds', String(PLDS)],
    ...['--latency-scale', String(LATENCY_SCALE), '--faults', '0'],
  ]);
  const crawls: Crawl[] = [];
  let hogShares: string | null = null;
  try {
    const kernel = await kernelOf(server.port);
    process.stdout.write(
      `${shapeOf(kernel)}; simweb in its own process, latency scale ${LATENCY_SCALE}, no faults; delay ${DELAY_MS} ms, 64 slots, perPld 1, WARC on; ${RUNS} run(s) per machine state, ${availableParallelism()} cores\n\n`,
    );
    for (const state of STATES) {
      const hogs = state === 'hogs' ? startHogs() : null;
      try {
        for (let run = 1; run <= RUNS; run++) {
          const order = run % 2 === 1 ? POLICY_NAMES : [...POLICY_NAMES].reverse();
          for (const policy of order) crawls.push(await crawlOnce(server.port, kernel, policy, state, run));
        }
      } finally {
        const shares = hogs?.stop();
        if (shares) hogShares = shares.map((share) => share.toFixed(2)).join(', ');
      }
    }
  } finally {
    server.stop();
  }
  print(crawls);
  if (hogShares) process.stdout.write(`\nCPU of each hog over its wall time: ${hogShares}\n`);
  process.stdout.write(
    `\npeak RSS of the crawler process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`,
  );
}
