import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  claimOutputFolder,
  ioError,
  isStorageFailure,
  makeDirectory,
  ObservatoryError,
  type Progress,
  withSystemCode,
} from '../core/index.ts';
import { CATALOGUE_FILE, TABLES_DIR } from '../snapshot/index.ts';
import {
  computePortalData,
  DATASET_JSONLD,
  DATASET_TURTLE,
  DEFAULT_DATA_DIR,
  DOWNLOADS_DIR,
  type DownloadableSnapshot,
  HISTORY_DIR,
  historyFiles,
  LATEST_FILE,
  LATEST_NAME,
  latestWeekly,
  type PortalData,
  RENDERED_PAGES_FILE,
  statsOptions,
  URL_LIST,
} from '../stats/index.ts';
import { duckdbBundleFiles } from './duckdb-wasm-bundle.ts';
import { type FetchedInputs, fetchPortalInputs, PORTAL_STATE_DIR } from './fetch-snapshots.ts';
import { downloadSiteFiles, tableViewFiles } from './link-downloads.ts';
import { planSnapshotPages, siteVersion } from './page-cache.ts';
import { replayArchive } from './replay-archive.ts';
import { fileIdentity, folderFiles, type SiteFile, syncSite } from './site-sync.ts';

/** Beside portal.json: which files the last build put into which output folder (site-sync.ts). */
const SITE_RECORD_FILE = 'site-files.json';

/** The Astro project. */
export const SITE_DIR = new URL('../../site/', import.meta.url).pathname;

/** What `buildPortal` needs; only `root` and `out` are required. */
export interface BuildPortalOptions {
  /** The snapshots folder. */
  readonly root: string;
  /** Where the static site is written: it ends up holding exactly this build's files (site-sync.ts). */
  readonly out: string;
  /** The URL the site is published at (default: the project's site); links and VoID/DCAT IRIs use it. */
  readonly baseUrl?: string;
  /** Where downloads are published; by default `snapshotsUrl`, else `<baseUrl>snapshots/` and the files are linked into `out`. */
  readonly downloadsUrl?: string;
  /**
   * A published snapshots folder to build from: what this build reads (fetch-snapshots.ts) is
   * fetched from there into `root` first, and the downloads link there.
   */
  readonly snapshotsUrl?: string;
  /** Where portal.json and the digest cache go (default: site/src/data/generated). */
  readonly dataDir?: string;
  readonly cacheDir?: string;
  /** Who publishes the snapshots and how to reach them (VoID/DCAT, About page); placeholders when unset. */
  readonly publisher?: string;
  readonly contact?: string;
  /** `evaluate --out` folder(s) and `estimate --json` outputs for the Reproductions page. */
  readonly evaluation?: string;
  readonly estimation?: string;
  /** Told as each phase starts (fetch, statistics, pages, site files): a build of years takes minutes. */
  readonly progress?: Progress;
}

/** What a build produced. */
export interface BuiltPortal {
  readonly out: string;
  readonly data: PortalData;
  /** What was fetched from `snapshotsUrl`; null when the build read `root` as it was. */
  readonly fetched: FetchedInputs | null;
  /** Milliseconds spent in the DuckDB queries and in the Astro build. */
  readonly statsMs: number;
  readonly renderMs: number;
}

/**
 * Runs `astro build` in a working folder of its own inside site/: when the output folder lies
 * outside the working folder, Astro writes its prerender chunks to `<cwd>/.astro/.prerender/`,
 * so two builds sharing a working folder (two tests, or a cron build overlapping a manual one)
 * overwrite each other's chunks and fail. Inside site/, packages still resolve from the project.
 */
async function runAstro(env: Record<string, string>): Promise<void> {
  const bin = join(dirname(createRequire(import.meta.url).resolve('astro/package.json')), 'bin/astro.mjs');
  makeDirectory(join(SITE_DIR, '.astro'), "Astro's working folder");
  const cwd = await mkdtemp(join(SITE_DIR, '.astro', 'build-')).catch((error: unknown) => {
    throw ioError("create Astro's working folder in", join(SITE_DIR, '.astro'), error);
  });
  try {
    await astroBuild(bin, cwd, env);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

function astroBuild(bin: string, cwd: string, env: Record<string, string>): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, 'build', '--root', SITE_DIR, '--silent'], {
      cwd,
      env: { ...process.env, ...env, ASTRO_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', fail);
    child.on('close', (code) => {
      if (code === 0) return done();
      const tail = output.trim().slice(-2000);
      // Astro says why in its output only: a disk that filled or is read-only is `io`, not a bug
      const said = { message: output };
      if (!isStorageFailure(said))
        return fail(new ObservatoryError('internal', `astro build failed (exit ${code}): ${tail}`));
      const what = withSystemCode(`astro build failed (exit ${code}): it could not write its output`, said);
      fail(new ObservatoryError('io', `${what}\n${tail}`));
    });
  });
}

/** Marks a folder as the portal's build output (core/output-folder.ts); the site carries this file. */
const PORTAL_MARKER = '.observatory-portal';

/**
 * Builds the static portal: the stats stage over `root`, then Astro renders site/ into `out`,
 * then the dataset description, urls.txt and (unless downloads live elsewhere) the snapshot files
 * are put beside the pages. Rebuilding costs the new snapshots' queries and pages (the other
 * snapshot pages come from the page cache) plus one render of the pages over all snapshots, and
 * writes into `out` only the files that changed since the last build into it.
 */
export async function buildPortal(options: BuildPortalOptions): Promise<BuiltPortal> {
  const o = statsOptions({ ...options, dataDir: options.dataDir ?? DEFAULT_DATA_DIR });
  // checked now, written by syncSite only once the site is built: a refused build leaves nothing
  const out = claimOutputFolder(options.out, {
    option: '--out',
    command: 'portal',
    marker: PORTAL_MARKER,
    apart: [o.root, o.dataDir, o.cacheDir],
  });
  // made now, so that a data or cache folder that cannot be (read-only, full) says why before any query
  makeDirectory(o.dataDir, '--data folder');
  makeDirectory(o.cacheDir, 'the portal cache folder');
  const phases = [
    ...(o.snapshotsUrl ? ['fetching what the build reads'] : []),
    'statistics (DuckDB)',
    'pages (Astro)',
    'site files',
  ];
  const phase = (name: string, extra: Record<string, number> = {}) =>
    options.progress?.update({
      done: phases.indexOf(name),
      total: phases.length,
      extra: { phase: name, ...extra },
    });
  if (o.snapshotsUrl) phase('fetching what the build reads');
  const fetched = o.snapshotsUrl
    ? await fetchPortalInputs({
        snapshotsUrl: o.snapshotsUrl,
        root: o.root,
        cacheDir: o.cacheDir,
        stateUrl: `${o.baseUrl}${PORTAL_STATE_DIR}/`,
      })
    : null;
  const t0 = performance.now();
  phase('statistics (DuckDB)');
  const data = await computePortalData(o);
  const t1 = performance.now();
  const pages = await planSnapshotPages(join(o.cacheDir, 'pages'), data, await siteVersion(SITE_DIR));
  await writeFile(join(o.dataDir, RENDERED_PAGES_FILE), JSON.stringify(pages.render));
  // the newest weekly snapshot's WACZ for the Replay page, made before Astro renders the page
  const replayFiles = await replayArchive(o.root, o.cacheDir, o.dataDir, data.snapshots);
  // Astro writes into a folder of its own; the site is then brought to this build's files
  const stage = join(o.dataDir, 'site-build');
  await rm(stage, { recursive: true, force: true });
  phase('pages (Astro)');
  // Astro says nothing until it is done (minutes for years of snapshots): the phase again every
  // 5 s with the seconds it has taken, so that a long build is never silent
  const astroStart = performance.now();
  const beat = setInterval(
    () => phase('pages (Astro)', { seconds: Math.round((performance.now() - astroStart) / 1000) }),
    5000,
  );
  try {
    await runAstro({
      OBSERVATORY_PORTAL_DATA: o.dataDir,
      OBSERVATORY_PORTAL_OUT: stage,
      OBSERVATORY_PORTAL_BASE_URL: o.baseUrl,
    });
  } finally {
    clearInterval(beat);
  }
  phase('site files');
  const files = await folderFiles(stage);
  for (const [path, f] of await pages.store(stage, (name) => join(DOWNLOADS_DIR, name, 'index.html')))
    files.set(path, f);
  // copies, not links: the next build rewrites these files of the data folder in place
  const dataFile = async (name: string): Promise<SiteFile> => {
    const from = join(o.dataDir, name);
    return { from, identity: await fileIdentity(from), copy: true };
  };
  for (const file of [DATASET_TURTLE, DATASET_JSONLD, URL_LIST]) files.set(file, await dataFile(file));
  // each snapshot's file list beside its page, and the `latest` alias: latest.json and
  // latest/urls.txt, the newest weekly snapshot's list under a stable name
  const fileList = (s: DownloadableSnapshot) => `${s.files.map((f) => f.url).join('\n')}\n`;
  const folders = [...data.snapshots, ...data.expansions];
  for (const s of folders) files.set(join(DOWNLOADS_DIR, s.name, URL_LIST), { text: fileList(s) });
  files.set(join(DOWNLOADS_DIR, LATEST_NAME, URL_LIST), { text: fileList(latestWeekly(data.snapshots)) });
  // per table, the URL of every snapshot's file in the tables/ view, whose folders name kind and date
  const views = tableViewFiles(folders);
  for (const { table } of data.tableUrlLists)
    files.set(join(DOWNLOADS_DIR, TABLES_DIR, table, URL_LIST), {
      text: views
        .filter((v) => v.table === table)
        .map((v) => `${o.downloadsUrl}${v.path}\n`)
        .join(''),
    });
  files.set(join(DOWNLOADS_DIR, LATEST_FILE), await dataFile(LATEST_FILE));
  // the history totals, so that a build without its cache takes them from the published site
  for (const name of await historyFiles(o.cacheDir)) {
    const from = join(o.cacheDir, HISTORY_DIR, name);
    files.set(join(PORTAL_STATE_DIR, HISTORY_DIR, name), {
      from,
      identity: await fileIdentity(from),
      copy: true,
    });
  }
  // the SQL console's DuckDB-WASM worker and module, from node_modules (never a CDN)
  for (const [path, f] of duckdbBundleFiles()) files.set(path, f);
  // the Replay page's WACZ and ReplayWeb.page, from node_modules (never a CDN)
  for (const [path, f] of replayFiles) files.set(path, f);
  if (o.downloadsUrl === `${o.baseUrl}${DOWNLOADS_DIR}/`) {
    for (const [path, f] of downloadSiteFiles(o.root, folders)) files.set(path, f);
    files.set(join(DOWNLOADS_DIR, CATALOGUE_FILE), await dataFile(CATALOGUE_FILE));
  }
  await syncSite(out, files, join(o.dataDir, SITE_RECORD_FILE));
  await rm(stage, { recursive: true, force: true });
  options.progress?.finish({ done: phases.length, total: phases.length, extra: { phase: 'done' } });
  return { out: out.path, data, fetched, statsMs: t1 - t0, renderMs: performance.now() - t1 };
}
