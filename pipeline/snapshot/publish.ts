import { mkdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Clock, CrawledDocument, Logger, Progress, ScheduleEntry, SnapshotKind } from '../core/index.ts';
import {
  acquirePidLock,
  invalidInput,
  makeDirectory,
  ObservatoryError,
  SOFTWARE_VERSION,
  silentLogger,
} from '../core/index.ts';
import { addToCatalogue, type CatalogueEntry, listSnapshots } from './catalogue.ts';
import { detectChanges } from './change-detection.ts';
import { openDuckDb } from './duckdb-session.ts';
import { fsyncPath, hashFile, ioError, isStorageFailure } from './durable-fs.ts';
import { journalInput } from './journal-input.ts';
import { formatChecksums, type ManifestFile, readManifest, type SnapshotManifest } from './manifest.ts';
import { exportNquads } from './nquads-export.ts';
import { countGraphStatements, EXPORT_ORDER, exportTable } from './parquet-export.ts';
import {
  CHECKSUMS_FILE,
  MANIFEST_FILE,
  NQUADS_FILE,
  parquetFileName,
  SNAPSHOT_SCHEMA_VERSION,
  TABLE_NAMES,
  type TableName,
} from './schema.ts';
import { isSnapshotName, snapshotKindOf } from './snapshot-name.ts';
import { computeStats } from './snapshot-stats.ts';
import { stageCrawl, stageSchedule } from './staging.ts';

/** The folder, under a snapshot root, where crawls in progress and publishes being built live. */
export const INCOMPLETE_DIR = '.incomplete';

export interface PublishOptions {
  /** The snapshots folder (holds index.json and one folder per snapshot). */
  readonly root: string;
  /** Folder name, from snapshotName(kind, startedAt). */
  readonly name: string;
  readonly kind: SnapshotKind;
  /** Crawl start and end, epoch milliseconds. */
  readonly startedAt: number;
  readonly endedAt: number;
  /** The crawl configuration, recorded verbatim in the manifest (must be JSON-serialisable). */
  readonly config: object;
  /** The crawl's documents; called once per publish attempt. */
  readonly documents: () => AsyncIterable<CrawledDocument>;
  /**
   * Re-visit state after this crawl, for schedule.parquet (an empty table when absent): the entries,
   * or a function that derives them from change detection's verdict per URL (see ChangeVerdicts).
   */
  readonly schedule?: readonly ScheduleEntry[] | ScheduleFromChanges;
  readonly clock: Clock;
  readonly log?: Logger;
  /**
   * Told as each phase ends: the percentage of the publish done (phases weighted by PHASE_WEIGHTS),
   * the phase, and the statements once quads.parquet holds them.
   */
  readonly progress?: Progress;
}

/**
 * The phases phaseTimer reports, with their share of a publish's time in percent, measured on a
 * 17.5-million-statement week (`npm run bench scale`): staging, sorting into quads.parquet and
 * writing data.nq.gz take nearly all of it. The ETA follows from these shares.
 */
export const PHASE_WEIGHTS: Readonly<Record<string, number>> = {
  staging: 30,
  'change detection': 2,
  'quads.parquet': 28,
  'documents.parquet': 2,
  'redirects.parquet': 1,
  'changes.parquet': 1,
  'schedule.parquet': 1,
  'data.nq.gz': 32,
  stats: 2,
  'checksums and fsync': 1,
};

/** Per URL of the crawl: did its content change (null: no previous observation, or nothing to compare)? */
export type ChangeVerdicts = ReadonlyMap<string, boolean | null>;

/** Derives the schedule after a crawl from its change verdicts; called once change detection has run. */
export type ScheduleFromChanges = (
  changes: ChangeVerdicts,
) => readonly ScheduleEntry[] | Promise<readonly ScheduleEntry[]>;

export interface PublishedSnapshot {
  readonly name: string;
  /** Absolute path of the published folder. */
  readonly folder: string;
  readonly manifest: SnapshotManifest;
  /** True when this exact input had already been published (the call was a no-op). */
  readonly alreadyPublished: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

function validate(options: PublishOptions): void {
  if (!isSnapshotName(options.name)) {
    throw invalidInput('snapshot name', 'YYYY-MM-DD or YYYY-MM-DDTHHMMZ', options.name);
  }
  if (!['weekly', 'interval'].includes(options.kind)) {
    throw invalidInput('snapshot kind', 'weekly or interval', options.kind);
  }
  // readers tell the kinds apart by the name's form, so a name must have its kind's form
  if (snapshotKindOf(options.name) !== options.kind) {
    throw invalidInput(
      `${options.kind} snapshot name`,
      options.kind === 'weekly' ? 'YYYY-MM-DD' : 'YYYY-MM-DDTHHMMZ',
      options.name,
    );
  }
  for (const key of ['startedAt', 'endedAt'] as const) {
    if (!Number.isFinite(options[key])) throw invalidInput(key, 'epoch milliseconds', options[key]);
  }
  if (options.endedAt < options.startedAt)
    throw invalidInput('endedAt', 'a time not before startedAt', options.endedAt);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw ioError('inspect', path, error);
  }
}

async function catalogueEntry(
  folder: string,
  manifest: SnapshotManifest,
  clock: Clock,
): Promise<CatalogueEntry> {
  return {
    name: manifest.name,
    kind: manifest.kind,
    startedAt: manifest.startedAt,
    endedAt: manifest.endedAt,
    publishedAt: iso(clock.now()),
    documents: manifest.counts.documents,
    statements: manifest.counts.statements,
    manifestSha256: (await hashFile(join(folder, MANIFEST_FILE))).sha256,
  };
}

/**
 * Logs each phase's duration as it ends (`publish phase`, with `phase`, `ms` and the process's peak
 * RSS so far), so that an operator sees where a long publish is and the publish benchmark can say
 * where the time and the memory go.
 */
function phaseTimer(
  log: Logger,
  snapshot: string,
  progress: Progress | undefined,
): (phase: string, statements?: number) => void {
  let last = performance.now();
  let done = 0;
  let staged: number | undefined;
  return (phase, statements) => {
    const now = performance.now();
    const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    log.info({ snapshot, phase, ms: Math.round(now - last), peakRssMiB }, 'publish phase');
    last = now;
    staged ??= statements;
    done += PHASE_WEIGHTS[phase];
    const state = { done, total: 100, statements: staged, extra: { phase } };
    if (phase === 'checksums and fsync') progress?.finish(state);
    else progress?.update(state);
  };
}

/** What a publish writes in its scratch folder (removed before and after it). */
interface ScratchFiles {
  /** The snapshot folder being built, renamed into place when complete. */
  readonly work: string;
  readonly database: string;
  /** The documents in the journal's format, when they do not come from a crawl journal. */
  readonly input: string;
  /** The readable documents of a journal with damaged lines (see stageCrawl). */
  readonly cleanInput: string;
  /** data.nq before it is gzipped. */
  readonly nquadsText: string;
}

function scratchFiles(dir: string): ScratchFiles {
  return {
    work: join(dir, 'publish'),
    database: join(dir, 'publish.duckdb'),
    input: join(dir, 'publish-input.ndjson'),
    cleanInput: join(dir, 'publish-clean.ndjson'),
    nquadsText: join(dir, 'publish-data.nq'),
  };
}

/** Writes every file of the snapshot into `work`, fsynced, and returns its manifest. */
async function buildFolder(
  options: PublishOptions,
  scratch: ScratchFiles,
  root: string,
): Promise<{ manifest: SnapshotManifest } | { fingerprint: string }> {
  const { work, database } = scratch;
  const log = options.log ?? silentLogger;
  // spills go next to the database, in the publish's scratch folder: same disk, removed with it;
  // every export that needs an order says ORDER BY, so DuckDB may reorder everything else
  const open = () =>
    openDuckDb({ path: database, tempDirectory: `${database}.tmp`, preserveInsertionOrder: false });
  let session = await open();
  try {
    let { connection } = session;
    const phase = phaseTimer(log, options.name, options.progress);
    // a schedule derived from change verdicts follows from the rest of the input; a given one is input
    const given = typeof options.schedule === 'function' ? null : (options.schedule ?? []);
    const header = JSON.stringify([
      options.name,
      options.kind,
      options.startedAt,
      options.endedAt,
      options.config,
      given,
    ]);
    const input = await journalInput(options.documents(), scratch.input);
    const staged = await stageCrawl(connection, input, header, scratch.cleanInput, log);
    // DuckDB's allocator keeps what its JSON reader took; a fresh instance over the same database
    // file (0.2 s) gives it back before the sorts take theirs (measured: peak RSS 948 -> 811 MiB)
    session.close();
    session = await open();
    connection = session.connection;
    phase('staging');
    log.info({ snapshot: options.name, documents: staged.documents }, 'crawl staged for publishing');
    if (staged.orphaned > 0) {
      log.warn(
        { snapshot: options.name, leftOut: staged.orphaned },
        'rows left out: the row that downloaded their final URL is missing from the crawl',
      );
    }
    const published = join(root, options.name);
    if (await exists(published)) return { fingerprint: staged.fingerprint };

    const earlier = (await listSnapshots(root))
      .filter((e) => e.startedAt < iso(options.startedAt) && e.name !== options.name)
      .reverse()
      .map((e) => ({ name: e.name, folder: join(root, e.name) }));
    const previousSnapshots = await detectChanges(connection, earlier);
    if (typeof options.schedule === 'function') {
      const verdicts = (await connection.runAndReadAll('SELECT url, changed FROM stage_changes')).getRows();
      await stageSchedule(
        connection,
        await options.schedule(new Map(verdicts as Array<[string, boolean | null]>)),
      );
    } else {
      await stageSchedule(connection, given ?? []);
    }
    phase('change detection');

    const files: ManifestFile[] = [];
    const rows = {} as Record<TableName, number>;
    const paths = {} as Record<TableName, string>;
    const exported = { name: options.name, kind: options.kind, startedAt: iso(options.startedAt) };
    for (const table of EXPORT_ORDER) {
      paths[table] = join(work, parquetFileName(table));
      rows[table] = await exportTable(connection, table, paths[table], exported);
      if (table === 'quads') await countGraphStatements(connection, paths.quads);
      phase(`${table}.parquet`, table === 'quads' ? rows.quads : undefined);
    }
    for (const table of TABLE_NAMES) {
      files.push({ name: parquetFileName(table), ...(await hashFile(paths[table])), rows: rows[table] });
    }
    await exportNquads(connection, paths.quads, join(work, NQUADS_FILE), scratch.nquadsText);
    files.unshift({ name: NQUADS_FILE, ...(await hashFile(join(work, NQUADS_FILE))), rows: rows.quads });
    phase('data.nq.gz');
    const stats = await computeStats(connection, paths);
    phase('stats');
    const manifest: SnapshotManifest = {
      schemaVersion: SNAPSHOT_SCHEMA_VERSION,
      name: options.name,
      kind: options.kind,
      startedAt: iso(options.startedAt),
      endedAt: iso(options.endedAt),
      softwareVersion: SOFTWARE_VERSION,
      config: options.config,
      inputFingerprint: staged.fingerprint,
      previousSnapshots,
      counts: {
        documents: rows.documents,
        statements: rows.quads,
        redirects: rows.redirects,
        changes: rows.changes,
        schedule: rows.schedule,
      },
      stats,
      files,
    };
    const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
    await writeFile(join(work, MANIFEST_FILE), manifestText);
    const manifestHash = await hashFile(join(work, MANIFEST_FILE));
    await writeFile(
      join(work, CHECKSUMS_FILE),
      formatChecksums([...files, { name: MANIFEST_FILE, sha256: manifestHash.sha256 }]),
    );
    for (const name of [...files.map((f) => f.name), MANIFEST_FILE, CHECKSUMS_FILE]) {
      await fsyncPath(join(work, name));
    }
    await fsyncPath(work);
    phase('checksums and fsync');
    return { manifest };
  } finally {
    session.close();
  }
}

/**
 * Publishes a finished crawl as the snapshot folder `<root>/<name>` (see DESIGN.md, Snapshot
 * folders). Everything is built in `<root>/.incomplete/<name>/publish/`, fsynced, then renamed into
 * place in one step, and index.json is rewritten atomically after: a folder appears only when
 * complete. A publish killed at any point can be rerun with the same input; the rerun rebuilds
 * what was not renamed yet, or finds the folder published and completes index.json. Publishing a
 * name that exists is a no-op when the input is the same (same fingerprint) and refused otherwise.
 */
export async function publishSnapshot(options: PublishOptions): Promise<PublishedSnapshot> {
  validate(options);
  const root = resolve(options.root);
  const dir = join(root, INCOMPLETE_DIR, options.name);
  const scratch = scratchFiles(dir);
  const { work, database } = scratch;
  const folder = join(root, options.name);
  makeDirectory(dir, 'the publish folder');
  const release = await acquirePidLock(join(root, INCOMPLETE_DIR, 'publish.lock'), 'another publish');
  const cleanUp = async () => {
    for (const path of [...Object.values(scratch), `${database}.wal`, `${database}.tmp`]) {
      await rm(path, { recursive: true, force: true });
    }
  };
  try {
    await cleanUp();
    await mkdir(work);
    const built = await buildFolder(options, scratch, root).catch((error: unknown) => {
      throw isStorageFailure(error) ? ioError('write the snapshot into', work, error) : error;
    });
    if ('fingerprint' in built) {
      const manifest = await readManifest(folder);
      if (manifest.inputFingerprint !== built.fingerprint) {
        throw new ObservatoryError(
          'invalid_input',
          `snapshot ${options.name} is already published in ${root} from a different crawl; ` +
            'remove it or publish under another name',
        );
      }
      if (!(await listSnapshots(root)).some((e) => e.name === options.name)) {
        await addToCatalogue(root, await catalogueEntry(folder, manifest, options.clock));
      }
      return { name: options.name, folder, manifest, alreadyPublished: true };
    }
    try {
      await rename(work, folder);
    } catch (error) {
      throw ioError('publish', folder, error);
    }
    await fsyncPath(root);
    await addToCatalogue(root, await catalogueEntry(folder, built.manifest, options.clock));
    (options.log ?? silentLogger).info({ snapshot: options.name, folder }, 'snapshot published');
    return { name: options.name, folder, manifest: built.manifest, alreadyPublished: false };
  } finally {
    await cleanUp();
    // the crawler's journal may share this folder; remove it only when nothing else is left
    await rmdir(dir).catch(() => {});
    await release();
  }
}
