/**
 * The independent RDF parsers installed on this machine (serd's serdi, raptor's rapper), used to
 * confirm fixture counts and to check that our N-Quads output is valid.
 */
import { spawnSync } from 'node:child_process';

/** Statements an independent parser reads from `file`, or throws with its complaint. */
export function independentCount(
  tool: 'serdi' | 'rapper',
  syntax: string,
  file: string,
  base: string,
): number {
  if (tool === 'serdi') {
    const run = spawnSync('serdi', ['-i', syntax, '-o', 'nquads', file, base], {
      encoding: 'utf8',
      maxBuffer: 1 << 30, // the default 1 MiB cuts off (and fails) any larger output
    });
    if (run.status !== 0) throw new Error(`serdi -i ${syntax} failed: ${run.stderr}`);
    return run.stdout.split('\n').filter((l) => l.trim() !== '').length;
  }
  const run = spawnSync('rapper', ['-i', syntax, '-c', file, base], { encoding: 'utf8' });
  const m = /Parsing returned (\d+) triples?/.exec(run.stderr);
  if (run.status !== 0 || !m || /Error/.test(run.stderr))
    throw new Error(`rapper -i ${syntax} failed: ${run.stderr}`);
  return Number(m[1]);
}
