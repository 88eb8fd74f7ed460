import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import {
  inParallel,
  makeDirectory,
  type OwnedFolder,
  PARALLEL_FILES,
  prepareOwnedFolder,
  replaceFile,
} from '../core/index.ts';
import { linkOrCopy } from '../snapshot/index.ts';

/**
 * One file of the built site: a hard link to (or with `copy`, a copy of) a file, or a text, with
 * an identity that changes whenever its bytes do (for a text, its hash).
 */
export type SiteFile =
  | { readonly from: string; readonly identity: string; readonly copy?: boolean }
  | { readonly text: string };

/** What the last build wrote into its output folder, kept outside it (the site must not carry it). */
interface SyncRecord {
  readonly out: string;
  readonly files: Readonly<Record<string, string>>;
}

const identity = (f: SiteFile) =>
  'text' in f ? `text:${createHash('sha256').update(f.text).digest('hex')}` : f.identity;

/** The SHA-256 of a file's bytes: the identity of a file whose bytes nothing else pins. */
export async function fileIdentity(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return `sha256:${hash.digest('hex')}`;
}

/** Every file under `dir` by its path inside it, identified by its hash: the output of a step not keyed otherwise. */
export async function folderFiles(dir: string): Promise<Map<string, SiteFile>> {
  const entries = (await readdir(dir, { withFileTypes: true, recursive: true })).filter((e) => e.isFile());
  const paths = entries.map((e) => join(e.parentPath, e.name));
  const ids = await inParallel(paths, PARALLEL_FILES, fileIdentity);
  return new Map(paths.map((p, i) => [relative(dir, p), { from: p, identity: ids[i] }]));
}

async function put(path: string, f: SiteFile): Promise<void> {
  makeDirectory(dirname(path), 'the site folder');
  // a reader of the site sees the old file or the new, never half; the site is rebuilt from the
  // snapshots, so its thousands of files are not synced one by one
  await replaceFile(
    path,
    async (temporary) => {
      if ('text' in f) await writeFile(temporary, f.text);
      else if (f.copy) await copyFile(f.from, temporary);
      else await linkOrCopy(f.from, temporary);
    },
    { durable: false },
  );
}

/**
 * Makes the owned folder `out` hold exactly `files` (path inside `out` -> file) beside its marker. When `recordPath` records the last
 * build into this very folder, only the files whose identity changed are written and the files no
 * longer wanted are removed, so a rebuild writes what is new (a site of ten years holds 17,000
 * per-snapshot files); otherwise `out` is emptied first. The folder belongs to the build: a file
 * changed in it by hand is only replaced when its identity changes.
 */
export async function syncSite(
  folder: OwnedFolder,
  files: ReadonlyMap<string, SiteFile>,
  recordPath: string,
): Promise<void> {
  const out = folder.path;
  let before: SyncRecord | null = null;
  try {
    before = JSON.parse(await readFile(recordPath, 'utf8')) as SyncRecord;
  } catch {
    // no record (or unreadable): a full write
  }
  // no record while the folder changes: a build that fails half-way leaves the next one to start afresh
  await rm(recordPath, { force: true });
  const reuse = before?.out === out && (await readdir(out).catch(() => null)) !== null;
  const known = reuse && before ? before.files : {};
  await prepareOwnedFolder(folder, { empty: !reuse });
  const now: Record<string, string> = {};
  await inParallel([...files], PARALLEL_FILES, async ([path, f]) => {
    const id = identity(f);
    now[path] = id;
    if (known[path] !== id) await put(join(out, path), f);
  });
  const gone = Object.keys(known).filter((path) => !(path in now));
  await inParallel(gone, PARALLEL_FILES, (path) => rm(join(out, path), { force: true }));
  // then the folders they leave empty, deepest first
  const folders = [...new Set(gone.map((path) => dirname(join(out, path))))].sort(
    (a, b) => b.length - a.length,
  );
  for (const folder of folders)
    for (let f = folder; f.startsWith(`${out}/`); f = dirname(f)) {
      if ((await readdir(f).catch(() => ['?'])).length > 0) break;
      await rmdir(f);
    }
  await writeFile(recordPath, JSON.stringify({ out, files: now } satisfies SyncRecord));
}
