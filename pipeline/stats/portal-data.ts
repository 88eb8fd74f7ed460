/**
 * The portal's data: everything the Astro site renders, written by `computePortalData` as one
 * JSON file (portal.json). The site reads nothing else, so this file is the contract between
 * pipeline/stats and site/.
 */
import type { CrawlConfig, CrawlOptionKey, CrawlSetting, SnapshotKind } from '../core/index.ts';
import type { PldFigures, SnapshotDigest, SnapshotStats } from '../snapshot/index.ts';
import type { ErratumView } from './errata.ts';
import type { WhatChangesView } from './what-changes.ts';

export type { PldFigures, SnapshotDigest };

/** A chart drawn at build time: the SVG, a sentence that says what it shows, and its data as a table. */
export interface Chart {
  readonly id: string;
  readonly title: string;
  /** Text alternative: what the chart shows, in words (aria-label and caption). */
  readonly summary: string;
  /** The drawing for wide screens, and the one for phones (bigger text for its size); see charts.ts. */
  readonly svg: string;
  /** Null for a compact chart: `svg` is drawn small and serves every screen. */
  readonly narrowSvg: string | null;
  readonly table: DataTable;
}

/** A table of values, rendered as an HTML table (also the text alternative of charts). */
export interface DataTable {
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<ReadonlyArray<string | number | null>>;
}

/**
 * One of the papers' figures or tables regenerated from the published data (pipeline/stats/reproductions.ts):
 * what it shows, its data (the CSV of `observatory report`), what differs from the paper's setup and
 * the DuckDB query that computes it.
 */
export interface Reproduction {
  /** File stem and anchor: `dyldo-figure-2`. */
  readonly id: string;
  /** Which paper's which figure: `DyLDO paper, Figure 2`. */
  readonly paper: string;
  readonly title: string;
  readonly summary: string;
  /** Null for a table. */
  readonly chart: Chart | null;
  readonly table: DataTable;
  readonly differences: string;
  readonly query: string;
}

/** One `evaluate --out` folder as the Reproductions page shows it (pipeline/stats/strategy-outputs.ts). */
export interface EvaluationView {
  readonly name: string;
  /** Its SVG figures as data: URLs, shown as images (a file's scripts never run in an image). */
  readonly figures: ReadonlyArray<{ readonly file: string; readonly dataUrl: string }>;
  /** Its results.csv rows for all documents (bucket `all`), as evaluate wrote them. */
  readonly overall: DataTable;
}

/** One downloadable file with its durable URL. */
export interface DownloadFile {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly rows?: number;
  /** Absolute URL under the configured base (or downloads) URL. */
  readonly url: string;
}

/** One snapshot as the portal shows it. */
export interface SnapshotView {
  readonly name: string;
  readonly kind: SnapshotKind;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly publishedAt: string;
  readonly previous: string | null;
  readonly counts: Readonly<Record<string, number>>;
  readonly stats: SnapshotStats;
  /** PLDs seen in this snapshot and in none before it. */
  readonly newPlds: number;
  readonly digest: SnapshotDigest;
  readonly files: readonly DownloadFile[];
  readonly manifestSha256: string;
}

/**
 * A published folder as the downloads show it. Every snapshot is one; an expansion crawl is only
 * this (it observes no change, so it has no page, trend or history of its own).
 */
export interface DownloadableSnapshot {
  readonly name: string;
  readonly kind: SnapshotKind;
  readonly startedAt: string;
  readonly files: readonly DownloadFile[];
}

/**
 * What `round` means in an expansion crawl's documents, in the words of the Downloads page, the
 * DCAT description and docs/data-dictionary.md alike (a test holds them to it): crawl.ts records
 * the round current when the fetch finished, and the round-end rule ends rounds early.
 */
export const EXPANSION_ROUND =
  'In an expansion crawl, round is the round current when the fetch finished (0 = the core seeds): a when, not a hop from the seeds, since the round-end rule may end a round early and move its rest to the next one, so a URI one hop from the seeds may be fetched in round 2, with --rounds hops too.';

/** One crawl of the kernel expansion (a snapshot of kind `expand`), listed on the Downloads page. */
export interface ExpansionView extends DownloadableSnapshot {
  readonly endedAt: string;
  /** Which crawl of how many (the manifest's `expansion`). */
  readonly crawl: number;
  readonly of: number;
  readonly counts: Readonly<Record<string, number>>;
}

/** One PLD over the weekly snapshots. */
export interface DomainView {
  readonly pld: string;
  /** Path segment of the PLD's page (safe characters only). */
  readonly slug: string;
  readonly series: ReadonlyArray<PldFigures & { readonly snapshot: string }>;
  readonly comparisons: number;
  readonly changed: number;
  /** Its documents attempted and returning RDF over the weekly snapshots. */
  readonly chart: Chart;
  /** Its documents and errors in the latest weekly snapshot; null when it was not crawled there. */
  readonly latest: DomainDocuments | null;
}

/** What a PLD's page shows of one snapshot: how many documents, the first ones by URL, its errors. */
export interface DomainDocuments {
  readonly documents: number;
  /** URL, status, error, format, statements. */
  readonly listed: DataTable;
  /** Error code, documents, example URL. */
  readonly errors: DataTable;
}

/** One column of the data dictionary. */
export interface DictionaryColumn {
  readonly name: string;
  readonly type: string;
  readonly meaning: string;
  readonly example: string;
  readonly since: string;
}

/** A file's section of the data dictionary. */
export interface DictionaryTable {
  readonly file: string;
  readonly intro: string;
  readonly columns: readonly DictionaryColumn[];
}

/** An example query from docs/queries, as researchers copy it. */
export interface ExampleQuery {
  readonly file: string;
  readonly question: string;
  readonly sql: string;
}

/** The settings the About page's prose names, beside its table of every crawl option. */
export const CRAWLER_PROSE = [
  'userAgent',
  'productToken',
  'delayMs',
  'perPld',
  'concurrency',
  'timeoutMs',
  'maxBytes',
  'maxRedirects',
  'maxAttempts',
  'crawlDelayCapMs',
  'robotsTtlMs',
] as const satisfies readonly CrawlOptionKey[];

/** The crawler as the About page describes it (pipeline/stats/crawler-facts.ts). */
export interface CrawlerFacts extends Pick<CrawlConfig, (typeof CRAWLER_PROSE)[number]> {
  /** The newest weekly snapshot, whose manifest's config the settings come from; null: none, the defaults. */
  readonly snapshot: string | null;
  readonly softwareVersion: string;
  /** Every crawl option, in the table's order (core/crawl-options.ts). */
  readonly settings: readonly CrawlSetting[];
}

/** `snapshots/latest.json`: the newest weekly snapshot, its page and its files (pipeline/stats/latest-alias.ts). */
export interface LatestAlias {
  readonly name: string;
  readonly kind: SnapshotKind;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly publishedAt: string;
  readonly manifestSha256: string;
  /** The snapshot's page, `<base-url>snapshots/<name>/`. */
  readonly page: string;
  readonly files: readonly DownloadFile[];
}

/** portal.json. */
export interface PortalData {
  readonly portalVersion: 1;
  /** The published base URL of the portal, ending in `/`. */
  readonly baseUrl: string;
  /** The dataset series as its description states it; publisher and contact are null when not configured. */
  readonly dataset: {
    readonly title: string;
    readonly description: string;
    readonly licence: string;
    /** The series IRI (on the dataset page). */
    readonly series: string;
    readonly publisher: string | null;
    /** A mailto: or http(s) URL. */
    readonly contact: string | null;
  };
  /** Snapshots oldest first. */
  readonly snapshots: readonly SnapshotView[];
  /** The expansion crawls (kind `expand`), oldest first: downloads only. */
  readonly expansions: readonly ExpansionView[];
  /** The name of the newest weekly snapshot (`latestWeekly`), the one the portal calls "latest". */
  readonly latestWeekly: string;
  readonly charts: Readonly<Record<string, Chart>>;
  /** The papers' figures from the published snapshots (the Reproductions page). */
  readonly reproductions: readonly Reproduction[];
  /** The evaluate / estimate outputs the build was given (`--evaluation`, `--estimation`). */
  readonly strategies: {
    readonly evaluations: readonly EvaluationView[];
    readonly estimation: DataTable | null;
  };
  readonly dynamics: {
    readonly mostDynamicPlds: DataTable;
    readonly leastDynamicPlds: DataTable;
    readonly vocabularies: DataTable;
    readonly mostDynamicDocuments: DataTable;
  };
  /** The "What changes" page: statements, predicates, classes and links added and removed (delta.parquet). */
  readonly whatChanges: WhatChangesView;
  readonly domains: readonly DomainView[];
  /** Figures once published wrong, with the snapshots whose files still state them (pipeline/stats/errata.ts). */
  readonly errata: readonly ErratumView[];
  readonly dictionary: readonly DictionaryTable[];
  /** The dictionary's Definitions: figure, definition, edge cases. */
  readonly definitions: DataTable;
  readonly queries: readonly ExampleQuery[];
  readonly crawler: CrawlerFacts;
  /** Files beside the pages: the dataset description and the bulk-download list. */
  readonly datasetFiles: { readonly turtle: string; readonly jsonld: string; readonly urlList: string };
  /** index.json beside the downloads: the catalogue this portal was built from. */
  readonly catalogueUrl: string;
  /** `<base-url>snapshots/latest.json`, always on the site (also with --downloads-url). */
  readonly latestUrl: string;
  /** `<base-url>snapshots/latest/urls.txt`: the newest weekly snapshot's file list under a stable name. */
  readonly latestUrlList: string;
  /**
   * Per table, `<base-url>snapshots/tables/<table>/urls.txt`: the URL of that table of every
   * snapshot in the tables/ view (hive partitions), for engines that read a list of URLs.
   */
  readonly tableUrlLists: ReadonlyArray<{ readonly table: string; readonly url: string }>;
}

export const PORTAL_DATA_FILE = 'portal.json';

/**
 * Written beside portal.json by each build: the names of the snapshots whose pages Astro renders.
 * The other snapshot pages are the cached output of an earlier build from the same input
 * (pipeline/portal/page-cache.ts), so a rebuild renders the new snapshots' pages only.
 */
export const RENDERED_PAGES_FILE = 'snapshot-pages.json';
