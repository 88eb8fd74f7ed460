import { mkdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { warcFilesIn } from '../archive/index.ts';
import type { Clock, CrawledDocument, Logger, Progress, ScheduleEntry, SnapshotKind } from '../core/index.ts';
import {
  acquirePidLock,
  collectGarbage,
  ignoreFailure,
  invalidInput,
  makeDirectory,
  ObservatoryError,
  SOFTWARE_VERSION,
  silentLogger,
  withCleanup,
} from '../core/index.ts';
import { addToCatalogue, type CatalogueEntry, listSnapshots, observationSnapshots } from './catalogue.ts';
import { detectChanges } from './change-detection.ts';
import { type DuckDbSession, openDuckDb } from './duckdb-session.ts';
import { fsyncPath, hashFile, ioError, isStorageFailure } from './durable-fs.ts';
import { journalInput } from './journal-input.ts';
import { updateLastObservations } from './last-observations.ts';
import {
  type ExpansionOfSnapshot,
  formatChecksums,
  type ManifestFile,
  type ReparsedFrom,
  readManifest,
  type SnapshotManifest,
} from './manifest.ts';
import { OUTPUTS, type WrittenFile } from './outputs.ts';
import {
  CHECKSUMS_FILE,
  MANIFEST_FILE,
  parquetFileName,
  SNAPSHOT_SCHEMA_VERSION,
  TABLE_NAMES,
  type TableName,
} from './schema.ts';
import { isSnapshotName, NAME_FORM_TEXT, SNAPSHOT_KINDS, snapshotKindOf } from './snapshot-name.ts';
import { computeStats } from './snapshot-stats.ts';
import { stageCrawl, stageSchedule } from './staging.ts';
import { linkSnapshotTables } from './table-links.ts';
import { type ArchiveSource, type CdxjDraft, draftCdxj } from './warc-output.ts';

/** The folder, under a snapshot root, where crawls in progress and publishes being built live. */
export const INCOMPLETE_DIR = '.incomplete';
/** The lock of the one publish at a time per snapshots root, in INCOMPLETE_DIR. */
export const PUBLISH_LOCK = 'publish.lock';

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
   * The crawl's WARC files (docs/archive.md), published with the snapshot; none when absent. A
   * folder: every `.warc.gz` file in it (a crawl's run folder); reparse names a published folder's
   * listed files instead (ArchiveSource).
   */
  readonly archive?: string | ArchiveSource;
  /** Recorded in the manifest when the documents were re-read from another snapshot's archive. */
  readonly reparsedFrom?: ReparsedFrom;
  /** Which crawl of a kernel expansion this is; required for kind `expand`, refused for the others. */
  readonly expansion?: ExpansionOfSnapshot;
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
  staging: 29,
  'change detection': 2,
  'quads.parquet': 28,
  'documents.parquet': 2,
  'redirects.parquet': 1,
  'changes.parquet': 1,
  'schedule.parquet': 1,
  'delta.parquet': 1,
  'data.nq.gz': 30,
  'digest.json': 1,
  archive: 1,
  stats: 2,
  'checksums and fsync': 1,
};

export interface PublishedSnapshot {
  readonly name: string;
  /** Absolute path of the published folder. */
  readonly folder: string;
  readonly manifest: SnapshotManifest;
  /** True when this exact input had already been published (the call was a no-op). */
  readonly alreadyPublished: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The archive a publish links in: a crawl's run folder stands for every `.warc.gz` file in it, as it is when the crawl ended. */
function archiveSource(archive: PublishOptions['archive']): ArchiveSource | null {
  if (archive === undefined) return null;
  return typeof archive === 'string' ? { dir: archive, files: warcFilesIn(archive) } : archive;
}

function validate(options: PublishOptions): void {
  if (!isSnapshotName(options.name)) {
    throw invalidInput('snapshot name', Object.values(NAME_FORM_TEXT).join(' or '), options.name);
  }
  if (!SNAPSHOT_KINDS.includes(options.kind)) {
    throw invalidInput('snapshot kind', SNAPSHOT_KINDS.join(' or '), options.kind);
  }
  // readers tell the kinds apart by the name's form, so a name must have its kind's form
  if (snapshotKindOf(options.name) !== options.kind) {
    throw invalidInput(`${options.kind} snapshot name`, NAME_FORM_TEXT[options.kind], options.name);
  }
  if ((options.kind === 'expand') !== (options.expansion !== undefined)) {
    throw invalidInput('expansion', 'which crawl of an expansion, for kind expand only', options.expansion);
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
 * Logs each phase's duration as it ends (`publish phase`, with `phase`, `ms`, `cpuMs` and the
 * process's peak RSS so far), so that an operator sees where a long publish is and the benchmarks
 * can say where the time and the memory go. `cpuMs` is the CPU time of every thread of the process
 * in the phase (DuckDB's, zlib's and workers' included; also whatever else the process runs
 * meanwhile): on a loaded machine it moves far less than `ms` does.
 */
function phaseTimer(
  log: Logger,
  snapshot: string,
  progress: Progress | undefined,
): (phase: string, statements?: number) => void {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let done = 0;
  let staged: number | undefined;
  return (phase, statements) => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    log.info({ snapshot, phase, ms: Math.round(now - last), cpuMs, peakRssMiB }, 'publish phase');
    last = now;
    lastCpu = process.cpuUsage();
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
  /** Where outputs keep their intermediate files (WriteContext.scratch). */
  readonly outputs: string;
}

function scratchFiles(dir: string): ScratchFiles {
  return {
    work: join(dir, 'publish'),
    database: join(dir, 'publish.duckdb'),
    input: join(dir, 'publish-input.ndjson'),
    cleanInput: join(dir, 'publish-clean.ndjson'),
    outputs: join(dir, 'publish-scratch'),
  };
}

/**
 * A crawl staged for publishing. Change detection's verdicts come first, so that the caller can
 * derive the re-visit schedule from them; `commit` then writes every output with that schedule
 * and publishes the folder. Holds the publish lock until `commit` or `close`.
 */
export interface Publication {
  /**
   * Per URL of the crawl: did its content change since the previous observation (null: nothing to
   * compare)? Empty when the snapshot is published already.
   */
  changes(): Promise<ReadonlyMap<string, boolean | null>>;
  /**
   * Writes every file of the snapshot (OUTPUTS) with `schedule` as schedule.parquet, fsynced, renames
   * the folder into place, lists it in index.json, and closes. A snapshot published already from
   * the same input is left as it is (the schedule is then ignored); from another input, refused.
   */
  commit(schedule: readonly ScheduleEntry[]): Promise<PublishedSnapshot>;
  /** Gives the publish up: scratch removed, lock released. Does nothing after `commit`. */
  close(): Promise<void>;
}

/**
 * Opens the publish of a finished crawl as the snapshot folder `<root>/<name>` (see DESIGN.md,
 * Snapshot folders) and stages its documents. Everything is built in
 * `<root>/.incomplete/<name>/publish/`, fsynced, then renamed into place in one step, and
 * index.json is rewritten atomically after: a folder appears only when complete. A publish killed
 * at any point can be rerun with the same input; the rerun rebuilds what was not renamed yet, or
 * finds the folder published and completes index.json. Publishing a name that exists is a no-op
 * when the input is the same (same fingerprint) and refused otherwise.
 */
export async function openPublication(options: PublishOptions): Promise<Publication> {
  validate(options);
  const root = resolve(options.root);
  const dir = join(root, INCOMPLETE_DIR, options.name);
  const scratch = scratchFiles(dir);
  const { work, database } = scratch;
  const folder = join(root, options.name);
  const log = options.log ?? silentLogger;
  makeDirectory(dir, 'the publish folder');
  const release = await acquirePidLock(join(root, INCOMPLETE_DIR, PUBLISH_LOCK), 'another publish');
  const cleanUp = async () => {
    for (const path of [...Object.values(scratch), `${database}.wal`, `${database}.tmp`]) {
      await rm(path, { recursive: true, force: true });
    }
  };
  const storageFailure = (error: unknown) =>
    isStorageFailure(error) ? ioError('write the snapshot into', work, error) : error;
  // spills go next to the database, in the publish's scratch folder: same disk, removed with it;
  // every export that needs an order says ORDER BY, so DuckDB may reorder everything else
  const open = () =>
    openDuckDb({ path: database, tempDirectory: `${database}.tmp`, preserveInsertionOrder: false });
  let session: DuckDbSession | null = null;
  let cdxjDraft: Promise<CdxjDraft | null> | null = null;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    session?.close();
    // the draft writes into the scratch folder until it settles
    await cdxjDraft?.catch(() => {});
    await cleanUp();
    // the crawler's journal may share this folder; remove it only when nothing else is left
    await rmdir(dir).catch(() => {});
    await release();
  };
  try {
    await cleanUp();
    await mkdir(work);
    await mkdir(scratch.outputs);
    session = await open();
    const phase = phaseTimer(log, options.name, options.progress);
    // the sixth element held a schedule given as input before schedules were derived at commit;
    // it stays null so that the fingerprints of folders published since then still match
    const header = JSON.stringify([
      options.name,
      options.kind,
      options.startedAt,
      options.endedAt,
      options.config,
      null,
    ]);
    const input = await journalInput(options.documents(), scratch.input);
    const staged = await stageCrawl(session.connection, input, header, scratch.cleanInput, log);
    // DuckDB's allocator keeps what its JSON reader took; a fresh instance over the same database
    // file (0.2 s) gives it back before the sorts take theirs (measured: peak RSS 948 -> 811 MiB)
    session.close();
    session = await open();
    phase('staging');
    log.info({ snapshot: options.name, documents: staged.documents }, 'crawl staged for publishing');
    if (staged.orphaned > 0) {
      log.warn(
        { snapshot: options.name, leftOut: staged.orphaned },
        'rows left out: the row that downloaded their final URL is missing from the crawl',
      );
    }
    const publishedAlready = await exists(folder);
    // indexed in JS while DuckDB detects changes and sorts the quads on its own threads (see
    // draftCdxj); started after staging, whose peak is the publish's, so that it adds nothing to
    // it, and only when there is a folder to build
    const archive = archiveSource(options.archive);
    const draft = publishedAlready ? Promise.resolve(null) : draftCdxj(archive, scratch.outputs);
    // awaited by the archive output, or by close; a failure is thrown there
    draft.catch(() => {});
    cdxjDraft = draft;
    const { connection } = session;
    let detected: Promise<readonly string[]> | null = null;
    // an expansion crawl observes no document of the kernel's series: nothing earlier is compared
    // with it (its changes table stays empty), and no observation is compared with it
    const expansion = options.kind === 'expand';
    const detect = () => {
      detected ??= listSnapshots(root).then(async (entries) => {
        const read = await detectChanges(
          connection,
          root,
          (expansion ? [] : observationSnapshots(entries))
            .filter((e) => e.startedAt < iso(options.startedAt) && e.name !== options.name)
            .reverse()
            .map((e) => ({ name: e.name, folder: join(root, e.name) })),
        );
        if (expansion) await connection.run('DELETE FROM stage_changes');
        return read;
      });
      return detected;
    };

    // derived data: a snapshot is published without it, and the next publish catches up
    const indexLastObservations = async () => {
      try {
        await updateLastObservations(connection, root);
      } catch (error) {
        log.warn(
          { snapshot: options.name, err: error },
          'the last observations of the root could not be updated; the next publish reads the snapshots it lacks',
        );
      }
    };

    const keepPublished = async (): Promise<PublishedSnapshot> => {
      const manifest = await readManifest(folder);
      if (manifest.inputFingerprint !== staged.fingerprint) {
        throw new ObservatoryError(
          'invalid_input',
          `snapshot ${options.name} is already published in ${root} from a different crawl; ` +
            'remove it or publish under another name',
        );
      }
      if (!(await listSnapshots(root)).some((e) => e.name === options.name)) {
        await addToCatalogue(root, await catalogueEntry(folder, manifest, options.clock));
      }
      // a publish killed after the rename left the tables/ view without this snapshot: the rerun adds it
      await linkSnapshotTables(root, options.name, options.kind);
      await indexLastObservations();
      return { name: options.name, folder, manifest, alreadyPublished: true };
    };

    const build = async (schedule: readonly ScheduleEntry[]): Promise<SnapshotManifest> => {
      const previousSnapshots = await detect();
      await stageSchedule(connection, schedule);
      // the change verdicts read into JS and the schedule made of them (~140 MiB of heap on a
      // 200,000-document week) stayed committed while the quads sort took DuckDB's memory: that
      // sum was the publish's peak
      collectGarbage();
      phase('change detection');
      const snapshot = { name: options.name, kind: options.kind, startedAt: iso(options.startedAt) };
      const written = new Map<string, WrittenFile>();
      const files: ManifestFile[] = [];
      const rowsOf = (name: string) => written.get(name)?.rows ?? 0;
      for (const output of OUTPUTS) {
        const context = {
          connection,
          work,
          scratch: scratch.outputs,
          snapshot,
          archive,
          cdxjDraft: draft,
          written,
        };
        for (const file of await output.write(context)) {
          written.set(file.name, file);
          const rows = file.rows === undefined ? {} : { rows: file.rows };
          files.push({ name: file.name, ...(await hashFile(join(work, file.name))), ...rows });
        }
        phase(output.phase, written.get(parquetFileName('quads'))?.rows);
      }
      const tables = Object.fromEntries(TABLE_NAMES.map((t) => [t, join(work, parquetFileName(t))]));
      const stats = await computeStats(connection, tables as Record<TableName, string>);
      phase('stats');
      const dependsOn = (await draft)?.dependsOn ?? [];
      const manifest: SnapshotManifest = {
        schemaVersion: SNAPSHOT_SCHEMA_VERSION,
        name: options.name,
        kind: options.kind,
        startedAt: iso(options.startedAt),
        endedAt: iso(options.endedAt),
        softwareVersion: SOFTWARE_VERSION,
        config: options.config,
        inputFingerprint: staged.fingerprint,
        ...(dependsOn.length > 0 ? { dependsOn } : {}),
        previousSnapshots,
        counts: {
          documents: rowsOf(parquetFileName('documents')),
          statements: rowsOf(parquetFileName('quads')),
          redirects: rowsOf(parquetFileName('redirects')),
          changes: rowsOf(parquetFileName('changes')),
          schedule: rowsOf(parquetFileName('schedule')),
        },
        stats,
        files,
        ...(options.reparsedFrom ? { reparsedFrom: options.reparsedFrom } : {}),
        ...(options.expansion ? { expansion: options.expansion } : {}),
      };
      await writeFile(join(work, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
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
      return manifest;
    };

    return {
      async changes() {
        if (publishedAlready) return new Map();
        try {
          await detect();
          const verdicts = await connection.runAndReadAll('SELECT url, changed FROM stage_changes');
          return new Map(verdicts.getRows() as Array<[string, boolean | null]>);
        } catch (error) {
          await ignoreFailure(close);
          throw storageFailure(error);
        }
      },
      async commit(schedule) {
        // a close that fails after a failed commit (the disk is full) must not hide why it failed
        return withCleanup(async () => {
          if (publishedAlready) return await keepPublished();
          const manifest = await build(schedule).catch((error: unknown) => {
            throw storageFailure(error);
          });
          try {
            await rename(work, folder);
          } catch (error) {
            throw ioError('publish', folder, error);
          }
          await fsyncPath(root);
          await addToCatalogue(root, await catalogueEntry(folder, manifest, options.clock));
          await linkSnapshotTables(root, options.name, options.kind);
          await indexLastObservations();
          log.info({ snapshot: options.name, folder }, 'snapshot published');
          return { name: options.name, folder, manifest, alreadyPublished: false };
        }, close);
      },
      close,
    };
  } catch (error) {
    await ignoreFailure(close);
    throw storageFailure(error);
  }
}

/** Publishes a finished crawl with a schedule known beforehand (empty by default): openPublication, then commit. */
export async function publishSnapshot(
  options: PublishOptions & { readonly schedule?: readonly ScheduleEntry[] },
): Promise<PublishedSnapshot> {
  return (await openPublication(options)).commit(options.schedule ?? []);
}
