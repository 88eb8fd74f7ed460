import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { inParallel, PARALLEL_FILES } from './in-parallel.ts';
import { linkOrCopy } from './link-downloads.ts';
import type { PortalData, SnapshotView } from './portal-data.ts';

/** Everything under these folders of site/ (and astro.config.mjs) is the code that renders a page. */
const SITE_SOURCES = ['src/components', 'src/layouts', 'src/lib', 'src/pages'];

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** A hash of the site's code and Astro's version: a cached page is only reused when neither changed. */
export async function siteVersion(siteDir: string): Promise<string> {
  const hash = createHash('sha256');
  const astro = createRequire(import.meta.url).resolve('astro/package.json');
  hash.update(JSON.parse(await readFile(astro, 'utf8')).version);
  const files = [join(siteDir, 'astro.config.mjs')];
  for (const dir of SITE_SOURCES) files.push(...(await filesUnder(join(siteDir, dir))));
  for (const file of files.sort()) hash.update(`\0${relative(siteDir, file)}\0`).update(await readFile(file));
  return hash.digest('hex');
}

/**
 * What a snapshot's page is rendered from (site/src/pages/snapshots/[name]/index.astro and the
 * layout): the snapshot, the pages of the PLDs it lists, and the site's base URL and files.
 */
function pageInput(data: PortalData, s: SnapshotView, slugs: ReadonlyMap<string, string>): unknown {
  return {
    baseUrl: data.baseUrl,
    datasetFiles: data.datasetFiles,
    snapshot: s,
    domains: s.stats.plds.top.map((p) => slugs.get(p.key) ?? null),
  };
}

/** The snapshot pages of one build: which are cached, and how to complete the site once Astro ran. */
export interface SnapshotPages {
  /** Names of the snapshots whose pages Astro must render. */
  readonly render: readonly string[];
  /** Puts the cached pages into `out` and keeps the rendered ones; drops cached pages no longer used. */
  complete(out: string, pagePath: (name: string) => string): Promise<void>;
}

/** Plans the snapshot pages against the page cache in `dir` (`<cache>/pages`). */
export async function planSnapshotPages(
  dir: string,
  data: PortalData,
  version: string,
): Promise<SnapshotPages> {
  const slugs = new Map(data.domains.map((d) => [d.pld, d.slug]));
  const keyed = data.snapshots.map((s) => {
    const key = createHash('sha256')
      .update(version)
      .update(JSON.stringify(pageInput(data, s, slugs)))
      .digest('hex');
    return { name: s.name, file: join(dir, `${key}.html`) };
  });
  const exists = async (file: string) => (await stat(file).catch(() => null))?.isFile() ?? false;
  const cached = await inParallel(keyed, PARALLEL_FILES, (k) => exists(k.file));
  return {
    render: keyed.filter((_, i) => !cached[i]).map((k) => k.name),
    async complete(out, pagePath) {
      await mkdir(dir, { recursive: true });
      await inParallel(keyed, PARALLEL_FILES, async (k, i) => {
        const page = join(out, pagePath(k.name));
        if (cached[i]) {
          await mkdir(dirname(page), { recursive: true });
          await linkOrCopy(k.file, page);
        } else await linkOrCopy(page, k.file);
      });
      const used = new Set(keyed.map((k) => k.file));
      for (const file of await filesUnder(dir)) if (!used.has(file)) await rm(file, { force: true });
    },
  };
}
