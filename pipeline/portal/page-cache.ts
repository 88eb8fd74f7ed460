import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { inParallel, makeDirectory, PARALLEL_FILES } from '../core/index.ts';
import { linkOrCopy } from '../snapshot/index.ts';
import type { PortalData, SnapshotView } from '../stats/index.ts';
import type { SiteFile } from './site-sync.ts';

/**
 * Everything under these folders of site/ (and astro.config.mjs) is the code that renders a page;
 * a new folder of site code must be added here. Not src/data: it holds the generated data and caches.
 */
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

/** The snapshot pages of one build: which are cached, and every page once Astro rendered the others. */
export interface SnapshotPages {
  /** Names of the snapshots whose pages Astro must render. */
  readonly render: readonly string[];
  /**
   * Keeps the pages Astro rendered into `stage` in the cache and drops cached pages no longer
   * used; returns every snapshot's page (path in the site -> its cached file, identified by its key).
   */
  store(stage: string, pagePath: (name: string) => string): Promise<Map<string, SiteFile>>;
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
    return { name: s.name, key, file: join(dir, `${key}.html`) };
  });
  const exists = async (file: string) => (await stat(file).catch(() => null))?.isFile() ?? false;
  const cached = await inParallel(keyed, PARALLEL_FILES, (k) => exists(k.file));
  return {
    render: keyed.filter((_, i) => !cached[i]).map((k) => k.name),
    async store(stage, pagePath) {
      makeDirectory(dir, 'the page cache folder');
      const rendered = keyed.filter((_, i) => !cached[i]);
      await inParallel(rendered, PARALLEL_FILES, (k) => linkOrCopy(join(stage, pagePath(k.name)), k.file));
      const used = new Set(keyed.map((k) => k.file));
      for (const file of await filesUnder(dir)) if (!used.has(file)) await rm(file, { force: true });
      return new Map(keyed.map((k) => [pagePath(k.name), { from: k.file, identity: `page:${k.key}` }]));
    },
  };
}
