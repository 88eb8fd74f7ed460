import { RdfaParser } from 'rdfa-streaming-parser';
import { htmlDepth, MAX_HTML_DEPTH } from './markup-depth.ts';
import { driveStreamParser } from './stream-parser.ts';
import type { Refusal, SyntaxInput } from './syntax-parser.ts';

/**
 * RDFa in HTML or XHTML. The profile follows the served type when it names (X)HTML and the
 * markup otherwise: an XML declaration or XHTML namespace means XHTML, anything else HTML.
 */
export function parseRdfa({
  text,
  baseIri,
  builder,
  mediaType,
}: SyntaxInput): Promise<string | Refusal | null> {
  const contentType =
    mediaType === 'application/xhtml+xml' || mediaType === 'text/html'
      ? mediaType
      : /^\s*<\?xml|xmlns="http:\/\/www\.w3\.org\/1999\/xhtml"/.test(text.slice(0, 2048))
        ? 'application/xhtml+xml'
        : 'text/html';
  if (htmlDepth(text, MAX_HTML_DEPTH) > MAX_HTML_DEPTH) {
    return Promise.resolve({
      code: 'too_complex',
      message: `markup nested deeper than ${MAX_HTML_DEPTH} levels`,
    });
  }
  return driveStreamParser(new RdfaParser({ baseIRI: baseIri, contentType }), text, builder);
}
