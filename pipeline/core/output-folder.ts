import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { ObservatoryError } from './errors.ts';
import { makeDirectory } from './make-directory.ts';

/** A folder a command writes (and may empty), with the file that marks it as that command's own. */
export interface OwnedFolder {
  readonly path: string;
  readonly marker: string;
  readonly command: string;
  readonly option: string;
}

/** What a command claims an output folder for. */
export interface OutputClaim {
  /** The option that named the folder, for messages: `--out`. */
  readonly option: string;
  /** The command that writes it: `portal`. */
  readonly command: string;
  /** The marker's name: `.observatory-portal`. */
  readonly marker: string;
  /** Folders the output must neither be, lie in, nor hold (the snapshots root it reads, say). */
  readonly apart?: readonly string[];
  /**
   * The names an earlier version wrote in the folder before it marked its folders: a folder holding
   * only such names is the command's own too (a run of that version, resumed after an upgrade).
   */
  readonly unmarked?: RegExp;
}

/** The path with symbolic links resolved as far as it exists, so that two names of one folder compare equal. */
function realPath(path: string): string {
  const absolute = resolve(path);
  const missing: string[] = [];
  let existing = absolute;
  while (!existsSync(existing) && dirname(existing) !== existing) {
    missing.unshift(existing.slice(dirname(existing).length + 1));
    existing = dirname(existing);
  }
  return join(realpathSync(existing), ...missing);
}

const within = (inner: string, outer: string) => {
  const r = relative(outer, inner);
  return r === '' || (!r.startsWith('..') && !r.startsWith('/'));
};

/** Whether `path` is `folder` or lies inside it, symbolic links resolved as far as they exist. */
export function folderHolds(folder: string, path: string): boolean {
  return within(realPath(path), realPath(folder));
}

/**
 * Refuses (`invalid_input`) a folder a command writes that is, lies in or holds one of `apart` (the
 * snapshots it reads, say): its files would land among them, or its clean-up remove them. `why`
 * ends the message: what the command does with the folder.
 */
export function keepApart(path: string, option: string, apart: readonly string[], why: string): void {
  const out = resolve(path);
  for (const other of apart) {
    const kept = realPath(other);
    const refuse = (what: string) =>
      new ObservatoryError('invalid_input', `${option} ${out} ${what}; ${why}`);
    if (folderHolds(kept, out)) throw refuse(`is or lies inside ${kept}, which it reads`);
    if (folderHolds(out, kept)) throw refuse(`holds ${kept}, which it reads`);
  }
}

/**
 * Checks that `path` may be the output folder of a command that may empty it, before anything is
 * done: a new or empty folder is taken, a folder an earlier run of the same command marked is
 * taken again, and anything else is refused (`invalid_input`), as is a folder that is, lies in or
 * holds one of `apart` (the snapshots it reads): one wrong argument in a cron line must not delete
 * the observatory or a user's files. Writes nothing: `prepareOwnedFolder` does, once the command's
 * input has been read, so that a refused run leaves no folder behind.
 */
export function claimOutputFolder(path: string, claim: OutputClaim): OwnedFolder {
  const out = resolve(path);
  const why = `\`observatory ${claim.command}\` writes and empties its folder: give it a new or empty one`;
  const refuse = (what: string) =>
    new ObservatoryError('invalid_input', `${claim.option} ${out} ${what}; ${why}`);
  keepApart(out, claim.option, claim.apart ?? [], why);
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw refuse('is not a folder');
    const entries = readdirSync(out);
    const earlier = claim.unmarked;
    if (
      entries.length > 0 &&
      !entries.includes(claim.marker) &&
      !(earlier && entries.every((e) => earlier.test(e)))
    )
      throw refuse(`holds files it did not write (no ${claim.marker} in it)`);
  }
  return { path: out, marker: claim.marker, command: claim.command, option: claim.option };
}

/**
 * Creates the claimed folder if need be and marks it as the command's own (so that the next run
 * may empty it); with `empty`, removes everything else in it (the folder itself stays: a shell may
 * be sitting in it).
 */
export async function prepareOwnedFolder(
  folder: OwnedFolder,
  { empty }: { readonly empty: boolean },
): Promise<void> {
  makeDirectory(folder.path, `${folder.option} folder`);
  if (empty) {
    const entries = (await readdir(folder.path)).filter((e) => e !== folder.marker);
    await Promise.all(entries.map((e) => rm(join(folder.path, e), { recursive: true, force: true })));
  }
  await writeFile(
    join(folder.path, folder.marker),
    `written by \`observatory ${folder.command}\`: it empties this folder whenever it writes here\n`,
  ).catch((cause) => {
    throw new ObservatoryError(
      'io',
      `cannot write in ${folder.option} ${folder.path}: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  });
}
