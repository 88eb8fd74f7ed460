/**
 * Portal rebuild cost, two ways.
 * 1. Real crawls of the simulated Web (weekly snapshots plus the interval ticks that were due) at
 *    half and at full length (BENCH_PORTAL_WEEKS, default 52; 0 skips them), cold and warm.
 * 2. Ten years (issue #14): a generated series of 520 weekly and 8,000 interval snapshots
 *    (test/portal/ten-years.ts: catalogue, manifests, digests, documents and changes Parquet), built
 *    cold over all but the newest (only the published digests in the cache), then warm after the
 *    newest is published. BENCH_PORTAL_TEN_YEARS=0 skips it.
 * The claim it checks: a warm rebuild's cost grows with the new snapshots, not with all of them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuiltPortal, buildPortal } from '../../pipeline/portal/index.ts';
import { buildSeries } from '../portal/series.ts';
import { publishEntries, writeTenYears } from '../portal/ten-years.ts';

const WEEKS = Number(process.env.BENCH_PORTAL_WEEKS ?? 52);
const TEN_YEARS = process.env.BENCH_PORTAL_TEN_YEARS !== '0';

const seconds = (ms: number) => (ms / 1000).toFixed(2);

function row(build: string, b: BuiltPortal): string {
  const n = b.data.snapshots.length;
  const statements = b.data.snapshots.reduce((s, x) => s + x.stats.statements, 0);
  const total = b.statsMs + b.renderMs;
  return `| ${n} | ${statements} | ${build} | ${seconds(b.statsMs)} | ${seconds(b.renderMs)} | ${seconds(total)} | ${(total / n).toFixed(1)} |\n`;
}

async function realCrawls(work: string): Promise<void> {
  const root = join(work, 'snapshots');
  let crawled = 0;
  for (const weeks of [Math.ceil(WEEKS / 2), WEEKS]) {
    const t = performance.now();
    await buildSeries(root, weeks, crawled);
    crawled = weeks;
    process.stderr.write(`crawled ${weeks} weeks in ${seconds(performance.now() - t)} s\n`);
    for (const build of ['cold', 'warm']) {
      const data = join(work, `data-${weeks}`);
      if (build === 'cold') await rm(data, { recursive: true, force: true });
      const b = await buildPortal({
        root,
        out: join(work, 'dist'),
        dataDir: data,
        baseUrl: 'http://127.0.0.1/',
      });
      process.stdout.write(row(build, b));
    }
  }
}

async function tenYears(work: string): Promise<void> {
  const root = join(work, 'ten-years');
  const data = join(work, 'data-ten-years');
  const t = performance.now();
  const entries = await writeTenYears({ root, cacheDir: join(data, 'cache') });
  process.stderr.write(`generated ${entries.length} snapshots in ${seconds(performance.now() - t)} s\n`);
  await publishEntries(root, entries.slice(0, -1));
  const build = () =>
    buildPortal({
      root,
      out: join(work, 'dist-ten-years'),
      dataDir: data,
      baseUrl: 'http://127.0.0.1/',
      // the generated folders hold no dump: downloads are published elsewhere, not linked into the site
      downloadsUrl: 'https://downloads.example/snapshots/',
    });
  process.stdout.write(row('cold (digests only)', await build()));
  await publishEntries(root, entries);
  process.stdout.write(row('warm, 1 new interval snapshot', await build()));
  process.stdout.write(row('warm, nothing new', await build()));
}

export default async function (): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'bench-portal-'));
  try {
    process.stdout.write(
      '| snapshots | statements | build | queries s | render s | total s | ms per snapshot |\n',
    );
    process.stdout.write('| ---: | ---: | --- | ---: | ---: | ---: | ---: |\n');
    if (WEEKS > 0) await realCrawls(work);
    if (TEN_YEARS) await tenYears(work);
    process.stdout.write(
      `\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (this process; the Astro build runs in a child process)\n`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
