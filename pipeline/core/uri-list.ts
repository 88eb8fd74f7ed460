import { readFile } from 'node:fs/promises';
import { ObservatoryError, quoteInput } from './errors.ts';
import { MAX_URL_LENGTH, normaliseIri } from './iri.ts';

/**
 * Reads a URI list (seeds, kernel, estimate input): one URI a line, `#` starts a comment, blank
 * lines ignored. URIs are normalised and deduplicated in order; a line that is not one http(s) URI
 * (two URIs on a line included) is an error naming the file and line, since a silently dropped or
 * merged seed skews a whole crawl.
 */
export async function readUriList(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : (cause as Error).message;
    throw new ObservatoryError('invalid_input', `cannot read URI list ${file}: ${why}`, { cause });
  }
  const urls = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') return;
    // a URI never holds whitespace: two URIs on a line would otherwise become one seed with %20 in it
    const spaced = /\s/.test(line);
    const url = spaced ? null : normaliseIri(line);
    if (!url) {
      const expected = spaced
        ? 'one http(s) URI a line (no whitespace inside)'
        : `an http(s) URI of at most ${MAX_URL_LENGTH} characters`;
      throw new ObservatoryError(
        'invalid_input',
        `${file}:${i + 1}: expected ${expected}, got ${quoteInput(line)}`,
      );
    }
    urls.add(url);
  });
  return [...urls];
}
