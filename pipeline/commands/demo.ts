import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { request } from 'undici';
import {
  crawlConfig,
  createLogger,
  createProgress,
  invalidInput,
  type Progress,
  readUriList,
  systemClock,
} from '../core/index.ts';
import { type CaptureMeasures, type DemoResult, prepareDemoFolder, runDemo } from '../demo/index.ts';
import { buildPortal, type PortalServer, servePortal } from '../portal/index.ts';
import { SCENARIOS, type SimWeb, startSimWeb } from '../simweb/index.ts';
import { addSimWebOptions, type SimWebCliOptions, simWebOptionsFromCli } from './simweb-options.ts';

interface DemoOptions extends SimWebCliOptions {
  out: string;
}

/** One example request of the tour: what to ask and how to show it. */
interface Example {
  readonly what: string;
  readonly url: string;
  readonly accept?: string;
}

async function ask(sim: SimWeb, example: Example): Promise<string> {
  const u = new URL(example.url);
  const res = await request(`${sim.origin}${u.pathname}${u.search}`, {
    headers: { host: u.host, ...(example.accept ? { accept: example.accept } : {}) },
    signal: AbortSignal.timeout(10_000),
  });
  const body = Buffer.from(await res.body.arrayBuffer()).toString('utf8');
  const first = body.split('\n').find((l) => l.trim() && !l.startsWith('@prefix')) ?? '';
  const location = res.headers.location ? ` -> ${res.headers.location}` : '';
  return `${res.statusCode}${location}  ${res.headers['content-type'] ?? '(no type)'}  ${first.slice(0, 90)}`;
}

function examples(sim: SimWeb): Example[] {
  const resource = sim.coreSeeds.find((s) => s.includes('/resource/')) ?? sim.coreSeeds[0];
  return [
    { what: 'robots.txt of a big dataset', url: `${new URL(resource).origin}/robots.txt` },
    { what: 'a core seed (DBpedia-style URI)', url: resource },
    { what: 'a vocabulary term', url: 'http://xmlns.com/foaf/0.1/Person' },
    {
      what: 'the FOAF vocabulary as Turtle',
      url: 'http://xmlns.com/foaf/spec/index.rdf',
      accept: 'text/turtle',
    },
    { what: 'scenario status-503', url: SCENARIOS['status-503'].url },
    { what: 'scenario redirect-loop', url: SCENARIOS['redirect-loop'].url },
  ];
}

/** Stage 1 of the demo: show what the simulated Web serves. */
async function tourSimWeb(sim: SimWeb, out: string): Promise<void> {
  const s = sim.summary();
  const seeds = join(out, 'seeds', 'core.txt');
  await mkdir(join(out, 'seeds'), { recursive: true });
  await sim.writeCoreSeeds(seeds);
  const w = (line: string) => process.stdout.write(`${line}\n`);
  w(`simulated Web of Data at ${sim.origin} (crawler: --resolve '${sim.resolveRule}' --allow-private)`);
  w(
    `  ${s.documents} documents, ${s.plds} PLDs (${s.singleDocumentPlds} with one document), ${s.hosts} hosts`,
  );
  w(`  largest PLDs: ${s.largestPlds.map((p) => `${p.pld} ${p.documents}`).join(', ')}`);
  w(`  formats: ${s.formats.join(', ')}`);
  w(`  fault kinds (rate x${s.faults}): ${s.faultKinds.join(', ')}`);
  w(`  ${s.scenarios} catalogued scenarios (docs/simweb.md)`);
  // the list names a few vocabulary terms (#fragment) beside their documents, as real lists do
  const coreSeeds = (await readUriList(seeds)).length;
  w(
    `  core seed list: ${seeds} (${sim.coreSeeds.length} URIs, ${coreSeeds} without #fragments and duplicates: the core seeds)`,
  );
  w('example requests:');
  for (const e of examples(sim))
    w(`  ${e.what}\n    GET ${e.url}${e.accept ? ` (Accept: ${e.accept})` : ''}\n    ${await ask(sim, e)}`);
}

interface DemoRunOptions extends DemoOptions {
  weeks: string;
  delay: string;
  logLevel: string;
  serve: boolean;
  portalPort: string;
}

/** Builds the portal over the demo's snapshots behind a local server (its address is the base URL). */
async function publishPortal(
  cli: DemoRunOptions,
  out: string,
  snapshotsDir: string,
  progress: Progress | undefined,
): Promise<PortalServer> {
  const port = Number(cli.portalPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw invalidInput('--portal-port', 'a TCP port (0: any free one)', cli.portalPort);
  }
  const server = await servePortal({ dir: join(out, 'portal'), port });
  try {
    await buildPortal({
      root: snapshotsDir,
      out: join(out, 'portal'),
      baseUrl: server.url,
      dataDir: join(out, 'portal-data'),
      progress,
    });
  } catch (error) {
    await server.close();
    throw error;
  }
  return server;
}

function percent(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** `observatory demo` (what `npm start` runs): the whole observatory on the simulated Web, on a virtual clock. */
export function demoCommand(): Command {
  return addSimWebOptions(
    new Command('demo').description(
      'run the observatory on the simulated Web of Data: expand, weeks of snapshots and ticks on a virtual clock, ground-truth comparison, portal',
    ),
    { docs: 1500, plds: 120, latencyScale: 0.05, faults: 0.5 },
  )
    .option(
      '--out <dir>',
      'where the demo writes (emptied first; refused if it holds files an earlier demo did not write)',
      'demo-output',
    )
    .option('--weeks <n>', 'full weeks of weekly snapshots and ticks', '4')
    .option('--delay <seconds>', 'politeness delay, scaled down for the demo', '0.02')
    .option('--log-level <level>', 'structured log level (logs go to OUT/demo.log)', 'info')
    .option('--no-serve', 'build the portal but do not serve it (CI)')
    .option('--portal-port <n>', 'port of the portal on 127.0.0.1 (0: any free one)', '4321')
    .action(async (cli: DemoRunOptions) => {
      const weeks = Number(cli.weeks);
      if (!Number.isInteger(weeks) || weeks < 1) {
        throw invalidInput('--weeks', 'a whole number of at least 1', cli.weeks);
      }
      const delay = Number(cli.delay);
      if (!Number.isFinite(delay) || delay < 0)
        throw invalidInput('--delay', 'seconds, at least 0', cli.delay);
      const out = resolve(cli.out);
      const started = performance.now();
      const say = (line: string) => process.stdout.write(`${line}\n`);
      // the folder is emptied before anything writes there, the log included
      await prepareDemoFolder(out);
      const logger = createLogger({ level: cli.logLevel, file: join(out, 'demo.log') });
      // on a terminal each phase is redrawn live; elsewhere (CI, a pipe) the lines `say` writes are the phases
      const progress = process.stderr.isTTY
        ? (label: string) => createProgress(label, systemClock, { logger })
        : undefined;
      const sim = await startSimWeb(simWebOptionsFromCli(cli));
      let result: DemoResult;
      try {
        await tourSimWeb(sim, out);
        result = await runDemo({
          out,
          sim,
          weeks,
          start: sim.clock.now(),
          config: crawlConfig({
            delayMs: Math.round(delay * 1000),
            timeoutMs: 3000,
            crawlDelayCapMs: 2000,
            maxAttempts: 1,
          }),
          logger,
          say,
          progress,
        });
      } finally {
        await sim.close();
      }
      say('');
      say(
        `ground truth: re-visits of the ${result.kernel} kernel documents against the simulated Web's real changes`,
      );
      say('| re-visits | downloads | changes captured | real changes | recall | precision |');
      say('| --- | ---: | ---: | ---: | ---: | ---: |');
      const rows: [string, CaptureMeasures][] = [
        ...result.strategies.map((r, i): [string, CaptureMeasures] => [
          `weekly + ticks, ${r.strategy}${i === 0 ? ' (default)' : ''}`,
          r.measures,
        ]),
        ['weekly only', result.weeklyOnly],
      ];
      for (const [name, m] of rows) {
        say(
          `| ${name} | ${m.downloads} | ${m.captured} | ${m.realChanges} | ${percent(m.recall)} | ${percent(m.precision)} |`,
        );
      }
      for (const r of result.strategies.slice(1))
        say(`(the ${r.strategy} series crawled the kernel only, for this comparison: ${r.snapshotsDir})`);
      say('');
      const total = result.published.reduce((sum, [, count]) => sum + count, 0);
      const kinds = result.published.map(([kind, count]) => `${count} ${kind}`).join(', ');
      say(
        `${total} snapshots in ${result.snapshotsDir} (${kinds}; check: npx observatory verify --root ${result.snapshotsDir})`,
      );
      const portal = await publishPortal(cli, out, result.snapshotsDir, progress?.('portal'));
      say(`portal built: ${join(out, 'portal')}`);
      say(`demo finished in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      if (!cli.serve) return portal.close();
      say(`portal served at ${portal.url}  (Ctrl-C to stop)`);
      await new Promise<void>((done) => {
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
      });
      await portal.close();
    });
}
