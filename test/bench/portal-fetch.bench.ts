/**
 * What a portal rebuild downloads (issue #16): four weekly snapshots of a simulated Web (kernel plus
 * one adaptive round, WARC archive on) are published and served over HTTP; the portal is built from
 * that URL with an empty cache (cold: what a CI run without its cache fetches), then a fifth week is
 * published and the portal rebuilt with the cache of the first build (warm: a weekly CI run).
 * Reports the bytes each build fetched against the bytes of the whole snapshots folder (what the
 * workflow downloaded before: every dump and archive).
 */
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { buildPortal, servePortal } from '../../pipeline/portal/index.ts';
import { startSimWeb } from '../../pipeline/simweb/index.ts';
import { TABLES_DIR } from '../../pipeline/snapshot/index.ts';
import { rdfDocuments, simWeekly } from '../observe/sim-weekly.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK = 7 * 86_400_000;
const WEEKS = 4;
const DOCS = 1500;

/** The snapshots folder's bytes; tables/ holds hard links of the folders' files, counted once (as rsync -aH copies them). */
function folderBytes(dir: string): number {
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && !relative(dir, e.parentPath).startsWith(TABLES_DIR))
      bytes += statSync(join(e.parentPath, e.name)).size;
  return bytes;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(2);

/** Runs the benchmark and prints its table. */
export default async function (): Promise<void> {
  const sim = await startSimWeb({ seed: 5, docs: DOCS, plds: 120, latencyScale: 0, faults: 0.5, now: W0 });
  const work = await mkdtemp(join(tmpdir(), 'portal-fetch-bench-'));
  const root = join(work, 'snapshots');
  const server = await servePortal({ dir: root });
  try {
    const kernel = rdfDocuments(sim, W0);
    for (let w = 0; w < WEEKS; w++) await simWeekly(sim, root, W0 + w * WEEK, kernel, { adaptiveRounds: 1 });
    const build = (out: string) =>
      buildPortal({
        root: join(work, 'fetched'),
        out: join(work, out),
        dataDir: join(work, 'data'),
        baseUrl: 'https://portal.example/',
        snapshotsUrl: server.url,
      });
    const rows: string[] = [];
    const row = async (label: string, weeks: number) => {
      const start = performance.now();
      const built = await build('site');
      const seconds = (performance.now() - start) / 1000;
      const all = folderBytes(root);
      const fetched = built.fetched?.bytes ?? 0;
      rows.push(
        `| ${label} | ${weeks} | ${mib(all)} | ${built.fetched?.files} | ${mib(fetched)} | ${(fetched / all).toFixed(3)} | ${seconds.toFixed(1)} | ${loadavg()[0].toFixed(1)} |`,
      );
    };
    await row('cold (empty cache)', WEEKS);
    await simWeekly(sim, root, W0 + WEEKS * WEEK, kernel, { adaptiveRounds: 1 });
    await row('warm (one new week)', WEEKS + 1);
    process.stdout.write(
      `${DOCS}-document simulated Web, 120 PLDs, kernel + 1 adaptive round, WARC on\n` +
        '| build | weekly snapshots | whole folder MiB | files fetched | MiB fetched | fetched / whole folder | build s | load (1 min) |\n' +
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n' +
        `${rows.join('\n')}\n`,
    );
  } finally {
    await server.close();
    sim.close();
  }
}
