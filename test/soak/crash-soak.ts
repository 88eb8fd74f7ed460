import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { INCOMPLETE_DIR, listSnapshots, TABLES_DIR, verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { CLI, snapshotCliArgs } from '../commands/cli-process.ts';
import { halves, sampleProcess } from './process-sampler.ts';
import { firstDifferences, type PublishedContent, publishedContent } from './published-content.ts';
import { auditRequests, type ServerAudit } from './server-audit.ts';

const NOW = '2026-01-05T00:00:00Z';
const NAME = '2026-01-05';
const DELAY_MS = 20;
const CRAWL_DELAY_CAP_MS = 100;

export interface CrashSoakOptions {
  readonly seed: number;
  readonly docs: number;
  readonly plds: number;
  readonly faults: number;
  /** Stop killing (and let the run finish) once the killed run has taken this long. */
  readonly budgetMs: number;
  readonly log: (line: string) => void;
}

export interface CrashSoakReport {
  readonly kernel: number;
  readonly referenceSeconds: number;
  readonly referencesAgree: string[];
  readonly kills: { crawling: number; publishing: number };
  readonly restarts: number;
  readonly compared: { documents: number; quads: number };
  readonly differences: string[];
  readonly problems: string[];
  readonly audit: ServerAudit;
  readonly peak: { rssMiB: [number, number]; fds: [number, number] };
}

function args(sim: SimWeb, kernel: string, out: string): string[] {
  return [
    CLI,
    ...snapshotCliArgs({ kernel, out, now: NOW, resolve: sim.resolveRule }),
    '--delay',
    String(DELAY_MS / 1000),
    '--crawl-delay-cap',
    `${CRAWL_DELAY_CAP_MS / 1000}s`,
    '--timeout',
    '2s',
    '--adaptive-rounds',
    '1',
    '--log-level',
    'silent',
  ];
}

function start(argv: string[]): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, argv, { stdio: 'ignore' });
  return { child, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

/** What anyone may see in the snapshots root between kills: nothing, or the complete folder. */
async function partialProblems(root: string): Promise<string[]> {
  const visible = readdirSync(root).filter(
    (n) => n !== INCOMPLETE_DIR && n !== TABLES_DIR && !n.startsWith('index.json'),
  );
  const problems = visible.filter((n) => n !== NAME).map((n) => `unexpected entry ${n}`);
  if (visible.includes(NAME)) {
    await verifySnapshot(join(root, NAME)).catch((e: Error) =>
      problems.push(`published but broken: ${e.message}`),
    );
  }
  const listed = (await listSnapshots(root)).map((e) => e.name);
  if (listed.length > 1 || (listed.length === 1 && !visible.includes(NAME)))
    problems.push(`index lists ${listed}`);
  return problems;
}

/**
 * Crawls a faulty simulated Web uninterrupted twice (do two runs agree?), then again while killing
 * the crawler with SIGKILL at random moments while crawling and while publishing, and compares.
 */
export async function crashSoak(o: CrashSoakOptions): Promise<CrashSoakReport> {
  const sim = await startSimWeb({
    seed: o.seed,
    docs: o.docs,
    plds: o.plds,
    faults: o.faults,
    latencyScale: 0.02,
    now: Date.parse(NOW),
  });
  try {
    const kernelUris = sim
      .truth()
      .filter((r) => r.kind === 'document')
      .map((r) => r.uri)
      .filter((_, i) => i % 2 === 0);
    const kernel = join(mkdtempSync(join(tmpdir(), 'soak-kernel-')), 'kernel.txt');
    writeFileSync(kernel, `${kernelUris.join('\n')}\n`);

    const refs: PublishedContent[] = [];
    let referenceMs = 0;
    let peak = { rss: [0, 0] as [number, number], fds: [0, 0] as [number, number] };
    for (let i = 0; i < 2; i++) {
      const out = mkdtempSync(join(tmpdir(), `soak-ref${i}-`));
      const t = performance.now();
      const run = start(args(sim, kernel, out));
      const sampler = sampleProcess(run.child.pid!);
      const code = await run.exited;
      sampler.stop();
      if (code !== 0) throw new Error(`reference run ${i} exited ${code}`);
      if (i === 0) {
        referenceMs = performance.now() - t;
        peak = halves(sampler.samples);
      }
      refs.push(await publishedContent(join(out, NAME)));
      o.log(
        `reference run ${i + 1}: ${(referenceMs / 1000).toFixed(1)} s, ${refs[i].documents.length} documents`,
      );
    }
    const referencesAgree = [
      ...firstDifferences(refs[0].documents, refs[1].documents),
      ...firstDifferences(refs[0].quads, refs[1].quads),
    ];

    const root = mkdtempSync(join(tmpdir(), 'soak-killed-'));
    const killingSince = performance.now();
    const kills = { crawling: 0, publishing: 0 };
    const problems: string[] = [];
    let restarts = 0;
    const staging = join(root, INCOMPLETE_DIR, NAME, 'publish');
    for (let attempt = 0; ; attempt++) {
      const killing = performance.now() - killingSince < o.budgetMs;
      const run = start(args(sim, kernel, root));
      let phase: 'crawling' | 'publishing' | null = null;
      if (killing) {
        const atPublish = attempt % 3 === 2;
        const deadline =
          performance.now() + (atPublish ? referenceMs * 2 : 300 + Math.random() * referenceMs * 0.6);
        let done = false;
        run.exited.then(() => {
          done = true;
        });
        while (!done && performance.now() < deadline && !(atPublish && existsSync(staging))) await sleep(10);
        if (atPublish && !done && existsSync(staging)) await sleep(Math.random() * 600);
        if (!done) {
          phase = existsSync(staging) ? 'publishing' : 'crawling';
          run.child.kill('SIGKILL');
        }
      }
      const code = await run.exited;
      restarts++;
      if (phase !== null && code !== 0) {
        kills[phase]++;
        problems.push(
          ...(await partialProblems(root)).map(
            (p) => `after kill ${kills.crawling + kills.publishing}: ${p}`,
          ),
        );
        continue;
      }
      if (code !== 0) problems.push(`run exited ${code} without being killed`);
      break;
    }
    o.log(`killed run: ${kills.crawling} kills while crawling, ${kills.publishing} while publishing`);
    const killed = await publishedContent(join(root, NAME));
    problems.push(...(await partialProblems(root)));
    const verify = start([CLI, 'verify', '--root', root]);
    if ((await verify.exited) !== 0) problems.push('observatory verify failed');
    if (killed.duplicateUrls.length > 0)
      problems.push(`documents twice: ${killed.duplicateUrls.slice(0, 5)}`);
    if (
      new Set(killed.quads).size !== killed.quads.length &&
      new Set(refs[0].quads).size === refs[0].quads.length
    ) {
      problems.push('quads duplicated by the resumed run');
    }
    if (existsSync(join(root, INCOMPLETE_DIR, NAME))) problems.push('the run is still in .incomplete');
    return {
      kernel: kernelUris.length,
      referenceSeconds: referenceMs / 1000,
      referencesAgree,
      kills,
      restarts,
      compared: { documents: killed.documents.length, quads: killed.quads.length },
      differences: [
        ...firstDifferences(refs[0].documents, killed.documents),
        ...firstDifferences(refs[0].quads, killed.quads),
      ],
      problems,
      audit: auditRequests(sim.web, sim.requestLog(), DELAY_MS, CRAWL_DELAY_CAP_MS),
      peak: { rssMiB: peak.rss, fds: peak.fds },
    };
  } finally {
    await sim.close();
  }
}
