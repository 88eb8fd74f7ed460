/**
 * A published folder's manifest and SHA256SUMS made to follow files a test changed in it: what a
 * thorough forger does, so that the damage a test makes is not simply caught by the checksums.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The manifest's size and checksum of each of `names`, and SHA256SUMS for them and the manifest, recomputed. */
export function relist(folder: string, names: readonly string[]): void {
  const manifestPath = join(folder, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const sums = new Map<string, string>();
  for (const name of names) {
    const bytes = readFileSync(join(folder, name));
    const entry = manifest.files.find((f: { name: string }) => f.name === name);
    entry.bytes = bytes.length;
    entry.sha256 = sha256(bytes);
    sums.set(name, entry.sha256);
  }
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  writeFileSync(manifestPath, text);
  sums.set('manifest.json', sha256(text));
  const lines = readFileSync(join(folder, 'SHA256SUMS'), 'utf8')
    .split('\n')
    .map((line) => {
      const name = line.slice(66);
      return sums.has(name) ? `${sums.get(name)}  ${name}` : line;
    });
  writeFileSync(join(folder, 'SHA256SUMS'), lines.join('\n'));
}
