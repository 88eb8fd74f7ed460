import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ObservatoryError } from '../core/index.ts';

/** The file that marks a folder as the demo's own, so that a later demo may wipe it. */
export const DEMO_MARKER = '.observatory-demo';

/**
 * Makes `out` an empty folder that holds only the demo's marker, before anything (the log
 * included) writes there: a new or empty folder is taken, a folder an earlier demo wrote (it has
 * the marker) is emptied, and anything else is refused, so `--out ~` cannot delete a user's files.
 */
export async function prepareDemoFolder(out: string): Promise<void> {
  const refuse = (what: string) =>
    new ObservatoryError(
      'invalid_input',
      `--out ${out} ${what}; the demo empties its folder: give it a new or empty one, or remove this one yourself`,
    );
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw refuse('is not a folder');
    const entries = await readdir(out);
    if (entries.length > 0 && !entries.includes(DEMO_MARKER))
      throw refuse(`holds files the demo did not write (no ${DEMO_MARKER} in it)`);
    // empty the folder rather than remove it: a shell or file manager may be sitting in it
    await Promise.all(entries.map((e) => rm(join(out, e), { recursive: true, force: true })));
  } else {
    await mkdir(out, { recursive: true });
  }
  await writeFile(
    join(out, DEMO_MARKER),
    'written by `observatory demo`: the demo empties this folder whenever it runs here\n',
  );
}
