import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inParallel, makeDirectory, ObservatoryError, PARALLEL_FILES, type Progress } from '../core/index.ts';
import {
  CATALOGUE_FILE,
  type CatalogueEntry,
  DIGEST_FILE,
  formatCatalogue,
  listSnapshots,
  observationSnapshots,
  openDuckDb,
  parquetFileName,
  readManifest,
  type SnapshotManifest,
  TABLE_NAMES,
  TABLES_DIR,
  verifyFiles,
} from '../snapshot/index.ts';
import { crawlerFacts } from './crawler-facts.ts';
import { readDictionary } from './data-dictionary.ts';
import {
  DATA_LICENCE,
  DATASET_DESCRIPTION,
  DATASET_TITLE,
  seriesIri,
  snapshotIri,
} from './dataset-description.ts';
import { writeDescription } from './description-cache.ts';
import { cachedDigest, snapshotDigest } from './digest-cache.ts';
import { exampleQueries } from './doc-queries.ts';
import { domainViews, queryDomainDocuments } from './domains.ts';
import { erratumViews } from './errata.ts';
import { queryHistory } from './history.ts';
import { loadHistoryState } from './history-state.ts';
import { LATEST_FILE, LATEST_NAME, latestAlias, latestWeekly } from './latest-alias.ts';
import { portalCharts } from './portal-charts.ts';
import type { DownloadFile, ExpansionView, PortalData, SnapshotView } from './portal-data.ts';
import { PORTAL_DATA_FILE } from './portal-data.ts';
import { computeReproductions } from './reproductions.ts';
import { DOWNLOADS_DIR, type StatsOptions } from './stats-options.ts';
import { evaluationViews, readEstimations, readEvaluations } from './strategy-outputs.ts';
import { whatChangesView } from './what-changes.ts';

/** The files beside the pages, written next to portal.json and copied into the site's root. */
export const DATASET_TURTLE = 'dataset.ttl';
export const DATASET_JSONLD = 'dataset.jsonld';
export const URL_LIST = 'urls.txt';

/** A table's URL list in the tables/ view: `<base-url>snapshots/tables/<table>/urls.txt`. */
export function tableUrlList(baseUrl: string, table: string): string {
  return `${baseUrl}${DOWNLOADS_DIR}/${TABLES_DIR}/${table}/${URL_LIST}`;
}

/** A snapshot's own file list (like Common Crawl's `*.paths`): `<base-url>snapshots/<name>/urls.txt`. */
export function snapshotUrlList(baseUrl: string, name: string): string {
  return `${snapshotIri(baseUrl, name)}${URL_LIST}`;
}

async function sha256File(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/**
 * The manifest of a catalogued snapshot, checked before the portal trusts it: it must be the
 * manifest index.json pins (its SHA-256 keys the digest cache); readManifest has checked that every
 * file it lists is a plain name inside the folder, so that no link or download follows `../` out of it.
 */
async function listedManifest(root: string, entry: CatalogueEntry): Promise<SnapshotManifest> {
  const folder = join(root, entry.name);
  const manifest = await readManifest(folder);
  const corrupt = (problem: string) =>
    new ObservatoryError('corrupt', `${join(folder, 'manifest.json')}: ${problem}`);
  if ((await sha256File(join(folder, 'manifest.json'))) !== entry.manifestSha256)
    throw corrupt('its SHA-256 is not the one index.json lists');
  return manifest;
}

/** Every file of a published folder with its durable URL: the manifest's data files, then the manifest and SHA256SUMS. */
async function downloadFiles(
  o: StatsOptions,
  entry: CatalogueEntry,
  listed: readonly { name: string; bytes: number; sha256: string; rows?: number }[],
): Promise<DownloadFile[]> {
  const folder = join(o.root, entry.name);
  const url = (name: string) => `${o.downloadsUrl}${entry.name}/${name}`;
  const extra = await Promise.all(
    ['manifest.json', 'SHA256SUMS'].map(async (name) => ({
      name,
      bytes: (await stat(join(folder, name))).size,
      sha256: name === 'manifest.json' ? entry.manifestSha256 : await sha256File(join(folder, name)),
    })),
  );
  return [...listed, ...extra].map((f) => ({ ...f, url: url(f.name) }));
}

/**
 * The `stats` stage: DuckDB queries over the published snapshots of `root` (manifests, cached
 * per-snapshot digests, running cross-snapshot totals of the small tables) into portal.json, the
 * VoID/DCAT description and the bulk-download list in `dataDir`. `progress` hears each phase and,
 * in the phases that go snapshot by snapshot (verifying and digesting the ones not cached), each
 * snapshot: a first build over years of snapshots takes minutes.
 */
export async function computePortalData(o: StatsOptions, progress?: Progress): Promise<PortalData> {
  const published = await listSnapshots(o.root);
  // the portal's pages, trends and history are the kernel's observations; the expansion crawls are
  // read by the Reproductions page only
  const catalogue = observationSnapshots(published);
  if (catalogue.length === 0) {
    throw new ObservatoryError(
      'invalid_input',
      `no published snapshots in ${o.root} (index.json lists none)`,
    );
  }
  // the given evaluate / estimate outputs first: a wrong folder fails before any query runs
  const strategies = {
    evaluations: o.evaluation === null ? [] : evaluationViews(await readEvaluations(o.evaluation)),
    estimation: o.estimation === null ? null : await readEstimations(o.estimation),
  };
  const session = await openDuckDb();
  try {
    const publishedManifests = await inParallel(published, PARALLEL_FILES, (e) => listedManifest(o.root, e));
    const manifestOf = (entry: CatalogueEntry) => publishedManifests[published.indexOf(entry)];
    const manifests = catalogue.map(manifestOf);
    const digests = await inParallel(catalogue, PARALLEL_FILES, (e) =>
      cachedDigest(o.cacheDir, e.manifestSha256),
    );
    // a snapshot read for the first time (no cached digest) is queried only once its tables match
    // their checksums; cached ones were checked then, so a rebuild hashes only the new snapshots.
    // Files fetched from --snapshots-url were checked as they arrived (fetch-snapshots.ts), and
    // only those the portal needs are there.
    const tables = [...TABLE_NAMES.map(parquetFileName), DIGEST_FILE];
    const uncached = digests.filter((d) => d === null).length;
    if (!o.snapshotsUrl) {
      let verified = 0;
      await inParallel(catalogue, PARALLEL_FILES, async (e, i) => {
        if (digests[i]) return;
        await verifyFiles(join(o.root, e.name), { read: tables });
        progress?.update({ done: ++verified, total: uncached, extra: { phase: 'verifying new snapshots' } });
      });
    }
    progress?.update({ done: 0, total: catalogue.length, extra: { phase: 'history totals' } });
    await loadHistoryState(session.connection, o.root, catalogue, o.cacheDir);
    const history = await queryHistory(session.connection);
    const files = await inParallel(catalogue, PARALLEL_FILES, (e, i) =>
      downloadFiles(o, e, manifests[i].files),
    );
    const snapshots: SnapshotView[] = [];
    for (const [i, entry] of catalogue.entries()) {
      const manifest = manifests[i];
      progress?.update({ done: i, total: catalogue.length, extra: { phase: 'snapshot figures' } });
      snapshots.push({
        name: entry.name,
        kind: entry.kind,
        startedAt: entry.startedAt,
        endedAt: entry.endedAt,
        publishedAt: entry.publishedAt,
        previous: i > 0 ? catalogue[i - 1].name : null,
        counts: manifest.counts,
        stats: manifest.stats,
        newPlds: history.newPlds.get(entry.name) ?? 0,
        // one query at a time on the session: only the digests not cached are computed here
        digest:
          digests[i] ??
          (await snapshotDigest(
            session.connection,
            join(o.root, entry.name),
            manifest,
            entry.manifestSha256,
            o.cacheDir,
          )),
        files: files[i],
        manifestSha256: entry.manifestSha256,
      });
    }
    const expansionCrawls = published.filter((e) => !catalogue.includes(e));
    const expansionFiles = await inParallel(expansionCrawls, PARALLEL_FILES, (e) =>
      downloadFiles(o, e, manifestOf(e).files),
    );
    const expansions = expansionCrawls.map((entry, i): ExpansionView => {
      const { expansion, counts } = manifestOf(entry);
      if (!expansion)
        throw new ObservatoryError(
          'corrupt',
          `${join(o.root, entry.name, 'manifest.json')}: a snapshot of kind expand without its expansion`,
        );
      return {
        name: entry.name,
        kind: entry.kind,
        startedAt: entry.startedAt,
        endedAt: entry.endedAt,
        crawl: expansion.crawl,
        of: expansion.of,
        counts,
        files: expansionFiles[i],
      };
    });
    const newestWeekly = latestWeekly(snapshots);
    const data: PortalData = {
      portalVersion: 1,
      baseUrl: o.baseUrl,
      dataset: {
        title: DATASET_TITLE,
        description: DATASET_DESCRIPTION,
        licence: DATA_LICENCE,
        series: seriesIri(o.baseUrl),
        publisher: o.publisher,
        contact: o.contact,
      },
      snapshots,
      expansions,
      latestWeekly: newestWeekly.name,
      charts: await portalCharts(snapshots, history),
      reproductions: await computeReproductions(session.connection, {
        root: o.root,
        catalogue: published,
        manifest: manifestOf,
      }),
      strategies,
      dynamics: {
        mostDynamicPlds: history.mostDynamicPlds,
        leastDynamicPlds: history.leastDynamicPlds,
        mostDynamicDocuments: history.mostDynamicDocuments,
        vocabularies: vocabularyTable(snapshots),
      },
      whatChanges: whatChangesView(snapshots),
      domains: await domainViews(
        snapshots,
        await queryDomainDocuments(
          session.connection,
          join(o.root, newestWeekly.name),
          manifests[snapshots.indexOf(newestWeekly)],
        ),
      ),
      errata: erratumViews(snapshots),
      ...(await readDictionary().then((d) => ({ dictionary: d.tables, definitions: d.definitions }))),
      queries: await exampleQueries(),
      crawler: crawlerFacts(manifests[snapshots.indexOf(newestWeekly)]),
      datasetFiles: { turtle: DATASET_TURTLE, jsonld: DATASET_JSONLD, urlList: URL_LIST },
      catalogueUrl: `${o.downloadsUrl}${CATALOGUE_FILE}`,
      latestUrl: `${o.baseUrl}${DOWNLOADS_DIR}/${LATEST_FILE}`,
      latestUrlList: snapshotUrlList(o.baseUrl, LATEST_NAME),
      tableUrlLists: TABLE_NAMES.map((table) => ({ table, url: tableUrlList(o.baseUrl, table) })),
    };
    makeDirectory(o.dataDir, '--data folder');
    await writeDescription(
      join(o.cacheDir, 'description'),
      { turtle: join(o.dataDir, DATASET_TURTLE), jsonld: join(o.dataDir, DATASET_JSONLD) },
      o.baseUrl,
      snapshots,
      expansions,
      o,
    );
    // the catalogue the portal was built from, republished beside the downloads so that a mirror
    // made from urls.txt can be checked with `observatory verify --root`
    await writeFile(join(o.dataDir, CATALOGUE_FILE), formatCatalogue(published));
    await writeFile(
      join(o.dataDir, LATEST_FILE),
      `${JSON.stringify(latestAlias(o.baseUrl, snapshots), null, 2)}\n`,
    );
    const urls = [
      data.catalogueUrl,
      data.latestUrl,
      ...[...snapshots, ...expansions].flatMap((s) => [
        ...s.files.map((f) => f.url),
        snapshotUrlList(o.baseUrl, s.name),
      ]),
    ];
    await writeFile(join(o.dataDir, URL_LIST), `${urls.join('\n')}\n`);
    await writeFile(join(o.dataDir, PORTAL_DATA_FILE), JSON.stringify(data));
    progress?.finish({ done: catalogue.length, total: catalogue.length, extra: { phase: 'done' } });
    return data;
  } finally {
    session.close();
  }
}

/** Classes that documents declare for themselves, summed over all snapshots, by change rate. */
function vocabularyTable(snapshots: readonly SnapshotView[]) {
  const totals = new Map<string, { comparisons: number; changed: number }>();
  for (const s of snapshots)
    for (const c of s.digest.classes) {
      const t = totals.get(c.key) ?? { comparisons: 0, changed: 0 };
      totals.set(c.key, { comparisons: t.comparisons + c.comparisons, changed: t.changed + c.changed });
    }
  const rows = [...totals]
    .filter(([, t]) => t.comparisons > 0)
    .map(
      ([key, t]) => [key, t.comparisons, t.changed, Number((t.changed / t.comparisons).toFixed(3))] as const,
    )
    .sort((a, b) => b[3] - a[3] || b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return { columns: ['class', 'comparisons', 'changes', 'change rate'], rows };
}
