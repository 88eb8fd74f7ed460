/**
 * Publish cost: seconds per million statements for a whole publish (staging, change detection,
 * Parquet, N-Quads, stats, checksums), Parquet bytes against gzipped N-Quads, and peak RSS.
 * A second snapshot of the same crawl measures the cost with change detection against the first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publishWeek } from '../snapshot/sample-crawl.ts';
import { syntheticCrawl } from '../snapshot/synthetic-crawl.ts';

const DOCUMENTS = Number(process.env.BENCH_PUBLISH_DOCUMENTS ?? 20_000);
const PER_DOCUMENT = 25;

export default async function (): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'bench-publish-'));
  try {
    process.stdout.write(
      '| snapshot | statements | seconds | s per 1M statements | Parquet bytes | data.nq.gz bytes | Parquet / nq.gz |\n',
    );
    process.stdout.write('| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n');
    for (const week of [0, 1]) {
      const start = Date.UTC(2026, 10, 16) + week * 7 * 86_400_000;
      const t0 = performance.now();
      const published = await publishWeek(root, start, syntheticCrawl(DOCUMENTS, PER_DOCUMENT, start));
      const seconds = (performance.now() - t0) / 1000;
      const m = published.manifest;
      const parquet = m.files.filter((f) => f.name.endsWith('.parquet')).reduce((sum, f) => sum + f.bytes, 0);
      const nq = m.files.find((f) => f.name === 'data.nq.gz')!.bytes;
      process.stdout.write(
        `| ${m.name} | ${m.counts.statements} | ${seconds.toFixed(1)} | ${((seconds * 1e6) / m.counts.statements).toFixed(1)} | ${parquet} | ${nq} | ${(parquet / nq).toFixed(2)} |\n`,
      );
    }
    process.stdout.write(`\npeak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB\n`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
