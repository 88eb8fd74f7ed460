import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { request } from 'undici';
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

/** Stage 1 of the demo: start the simulated Web and show what it serves. Later stages (expand, snapshots, ticks, portal) follow it. */
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
  w(`  core seed list: ${seeds} (${sim.coreSeeds.length} URIs)`);
  w('example requests:');
  for (const e of examples(sim))
    w(`  ${e.what}\n    GET ${e.url}${e.accept ? ` (Accept: ${e.accept})` : ''}\n    ${await ask(sim, e)}`);
}

/** `observatory demo`: for now, a tour of the simulated Web; then it stops and exits 0. */
export function demoCommand(): Command {
  return addSimWebOptions(
    new Command('demo').description(
      'run the observatory on the simulated Web of Data (today: a tour of the simulated Web)',
    ),
    {
      docs: 3000,
      plds: 200,
      latencyScale: 0,
    },
  )
    .option('--out <dir>', 'where the demo writes (git-ignored)', 'demo-output')
    .action(async (cli: DemoOptions) => {
      const sim = await startSimWeb(simWebOptionsFromCli(cli));
      try {
        await tourSimWeb(sim, resolve(cli.out));
      } finally {
        await sim.close();
      }
    });
}
