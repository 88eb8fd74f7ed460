import { claimOutputFolder, prepareOwnedFolder } from '../core/index.ts';

/** The file that marks a folder as the demo's own, so that a later demo may wipe it. */
export const DEMO_MARKER = '.observatory-demo';

/**
 * Makes `out` an empty folder that holds only the demo's marker, before anything (the log
 * included) writes there: a new or empty folder is taken, a folder an earlier demo wrote (it has
 * the marker) is emptied, and anything else is refused, so `--out ~` cannot delete a user's files.
 */
export async function prepareDemoFolder(out: string): Promise<void> {
  const folder = claimOutputFolder(out, { option: '--out', command: 'demo', marker: DEMO_MARKER });
  await prepareOwnedFolder(folder, { empty: true });
}
