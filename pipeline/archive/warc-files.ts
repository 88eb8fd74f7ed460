import { existsSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { ioError, makeDirectory, type WarcPointer } from '../core/index.ts';
import { noteLine, notesFile } from './cdxj-notes.ts';
import { completeMembersBytes } from './gzip-members.ts';
import type { ArchivedMember } from './warc-records.ts';

/** Where and how a crawl's WARC files are written. */
export interface WarcFilesOptions {
  readonly dir: string;
  /** Files are named `<prefix>-<NNNNN>.warc.gz`. */
  readonly prefix: string;
  /** A file is closed and the next one begun once the next write would take it past this size. */
  readonly maxFileBytes: number;
  /** The largest gzip member ever written: what resume reads at most at once to find torn tails. */
  readonly maxMemberBytes: number;
  /** The first member of every file (its warcinfo record), given the file's name. */
  readonly header: (filename: string) => Promise<ArchivedMember>;
}

/** A growing, rolling set of WARC files, appended one group of gzip members at a time. */
export interface WarcFiles {
  /**
   * Appends `members` in order, all in one file, and resolves with where each lies once they are on
   * disk (fdatasync): a pointer handed out always names complete, durable bytes. Calls run in the
   * order made. After a failed write every later call fails with the same error.
   */
  append(members: readonly ArchivedMember[]): Promise<WarcPointer[]>;
  /** The names of the files so far, in order. */
  files(): string[];
  close(): Promise<void>;
}

const SERIAL_DIGITS = 5;

function fileName(prefix: string, serial: number): string {
  return `${prefix}-${String(serial).padStart(SERIAL_DIGITS, '0')}.warc.gz`;
}

/** The serials of the files of this prefix already in `dir`, ascending. */
function existingSerials(dir: string, prefix: string): number[] {
  const pattern = new RegExp(
    `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d{${SERIAL_DIGITS}})\\.warc\\.gz$`,
  );
  return readdirSync(dir)
    .map((name) => pattern.exec(name))
    .filter((m) => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/**
 * The prefix of a WARC file's name, `<prefix>-<NNNNN>.warc.gz`: a crawl that publishes names its
 * files after its snapshot, so this is the snapshot folder that holds the file. Null for another name.
 */
export function warcFilePrefix(filename: string): string | null {
  return new RegExp(`^(.+)-\\d{${SERIAL_DIGITS}}\\.warc\\.gz$`).exec(filename)?.[1] ?? null;
}

/** The WARC files in `dir`, in name order (which is their order within each prefix). */
export function warcFilesIn(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.warc.gz'))
        .sort()
    : [];
}

/**
 * Opens the WARC files of a crawl in `dir`, going on from the last one a previous run left. A crash
 * may have torn that file's last record: it is cut back to its last complete gzip member first,
 * so every file stays a sequence of whole records (and a pointer in the journal, written only
 * after its record was on disk, still names a whole one).
 *
 * Each file's index notes (cdxj-notes.ts) are written beside it after its members, unsynced: they
 * are a cache the publish checks against the file. The notes of a file a previous run left torn are
 * removed rather than mended (the publish reads that file instead), and so are those of a file that
 * takes a record the notes cannot describe.
 */
export async function openWarcFiles(options: WarcFilesOptions): Promise<WarcFiles> {
  makeDirectory(options.dir, 'the WARC folder');
  try {
    return await openedWarcFiles(options);
  } catch (error) {
    throw ioError('open the WARC files in', options.dir, error);
  }
}

async function openedWarcFiles(options: WarcFilesOptions): Promise<WarcFiles> {
  const { dir, prefix, maxFileBytes } = options;
  const serials = existingSerials(dir, prefix);
  let serial = serials.at(-1) ?? 0;
  let name = fileName(prefix, serial);
  const path = join(dir, name);
  const resumed = existsSync(path);
  if (resumed) {
    const whole = completeMembersBytes(path, options.maxMemberBytes);
    if (whole !== statSync(path).size) {
      truncateSync(path, whole);
      // the notes may name what was cut off, and the next members will lie there
      rmSync(notesFile(path), { force: true });
    }
  }
  let handle: FileHandle = await open(path, 'a');
  // a file resumed whole goes on with its notes (a member noted no more, for a crash between the
  // two writes, leaves them short of covering the file, and the publish then reads it)
  let notes: FileHandle | null = !resumed
    ? await open(notesFile(path), 'w')
    : existsSync(notesFile(path))
      ? await open(notesFile(path), 'a')
      : null;
  let size = (await handle.stat()).size;
  const names = serials.length > 0 ? serials.map((s) => fileName(prefix, s)) : [name];

  async function write({ bytes, note }: ArchivedMember): Promise<number> {
    const offset = size;
    await handle.write(bytes, 0, bytes.length);
    size += bytes.length;
    if (notes === null) return offset;
    if (note === 'unknown') {
      await notes.close();
      notes = null;
      rmSync(notesFile(join(dir, name)), { force: true });
    } else {
      await notes.write(noteLine(note, { filename: name, offset, length: bytes.length }));
    }
    return offset;
  }

  // group commit: one fdatasync covers every write made before it started, so that concurrent
  // fetches share syncs instead of queueing one each behind the other
  let written = 0;
  let synced = 0;
  let syncing: Promise<void> | null = null;
  async function syncThrough(write: number): Promise<void> {
    while (synced < write) {
      if (syncing === null) {
        const covers = written;
        syncing = handle
          .datasync()
          .then(() => {
            synced = Math.max(synced, covers);
          })
          .finally(() => {
            syncing = null;
          });
      }
      await syncing;
    }
  }

  let headerEnd = 0;
  async function startFile(): Promise<void> {
    await syncing;
    await handle.datasync();
    synced = written;
    await handle.close();
    await notes?.close();
    serial++;
    name = fileName(prefix, serial);
    names.push(name);
    handle = await open(join(dir, name), 'a');
    notes = await open(notesFile(join(dir, name)), 'w');
    size = 0;
    await write(await options.header(name));
    headerEnd = size;
  }
  if (size === 0) await write(await options.header(name));
  headerEnd = size;

  let tail: Promise<unknown> = Promise.resolve();
  // the first failure (a full disk), as an io error naming the file and the system's code
  let failure: unknown = null;
  const failed = (doing: string, error: unknown) => {
    failure ??= ioError(doing, join(dir, name), error);
    return failure;
  };
  /** Writes one group in order after the groups before it; returns its pointers and its write number. */
  async function writeGroup(members: readonly ArchivedMember[]): Promise<[WarcPointer[], number]> {
    if (failure !== null) throw failure;
    try {
      const bytes = members.reduce((sum, m) => sum + m.bytes.length, 0);
      if (size > headerEnd && size + bytes > maxFileBytes) await startFile();
      const pointers: WarcPointer[] = [];
      for (const m of members)
        pointers.push({ filename: name, offset: await write(m), length: m.bytes.length });
      return [pointers, ++written];
    } catch (error) {
      throw failed('write the WARC file', error);
    }
  }
  return {
    async append(members) {
      const done = tail.then(() => writeGroup(members));
      tail = done.catch(() => {});
      const [pointers, write] = await done;
      await syncThrough(write).catch((error: unknown) => {
        throw failed('sync the WARC file', error);
      });
      return pointers;
    },
    files: () => [...names],
    async close() {
      await tail;
      await syncing?.catch(() => {});
      try {
        if (failure === null) await handle.datasync();
      } catch (error) {
        failed('sync the WARC file', error);
      }
      await handle.close().catch((error: unknown) => failed('close the WARC file', error));
      await notes?.close().catch((error: unknown) => failed('close the index notes of', error));
      if (failure !== null) throw failure;
    },
  };
}
