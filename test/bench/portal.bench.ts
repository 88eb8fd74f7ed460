/**
 * Portal rebuild cost: builds the portal over a series of real crawls of the simulated Web
 * (weekly snapshots plus the interval ticks that were due) at half and at full length, cold
 * (no digest cache) and warm (cache kept), and reports seconds per snapshot. The claim it checks:
 * cost grows with the number of snapshots (warm: with the new ones only), not with their quads.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPortal } from '../../pipeline/stats/index.ts';
import { buildSeries } from '../portal/series.ts';

const WEEKS = Number(process.env.BENCH_PORTAL_WEEKS ?? 52);

export default async function (): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'bench-portal-'));
  const root = join(work, 'snapshots');
  try {
    process.stdout.write(
      '| snapshots | statements | build | queries s | render s | total s | ms per snapshot |\n',
    );
    process.stdout.write('| ---: | ---: | --- | ---: | ---: | ---: | ---: |\n');
    let crawled = 0;
    for (const weeks of [Math.ceil(WEEKS / 2), WEEKS]) {
      const t = performance.now();
      await buildSeries(root, weeks, crawled);
      crawled = weeks;
      process.stderr.write(`crawled ${weeks} weeks in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      for (const build of ['cold', 'warm']) {
        const data = join(work, `data-${weeks}`);
        if (build === 'cold') await rm(data, { recursive: true, force: true });
        const b = await buildPortal({
          root,
          out: join(work, 'dist'),
          dataDir: data,
          baseUrl: 'http://127.0.0.1/',
        });
        const n = b.data.snapshots.length;
        const statements = b.data.snapshots.reduce((s, x) => s + x.stats.statements, 0);
        const total = b.statsMs + b.renderMs;
        process.stdout.write(
          `| ${n} | ${statements} | ${build} | ${(b.statsMs / 1000).toFixed(2)} | ${(b.renderMs / 1000).toFixed(2)} | ${(total / 1000).toFixed(2)} | ${(total / n).toFixed(0)} |\n`,
        );
      }
    }
    process.stdout.write(
      `\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (the Astro build runs in a child process)\n`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
