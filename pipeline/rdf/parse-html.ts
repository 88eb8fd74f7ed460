import type { RdfFormat } from '../core/index.ts';
import { jsonLdScripts } from './html-jsonld.ts';
import { addEmbeddedJsonLd } from './parse-jsonld.ts';
import { parseRdfa } from './parse-rdfa.ts';
import { publishesRdfa } from './rdfa-rule.ts';
import type { Refusal, SyntaxInput } from './syntax-parser.ts';

/** What reading an (X)HTML page gave: the adapter's outcome, and the syntax the page publishes in. */
export interface HtmlReading {
  readonly outcome: string | Refusal | null;
  /**
   * `rdfa` when its RDFa passes the RDFa rule (whatever JSON-LD it also embeds), else `jsonld`
   * when its JSON-LD script elements give statements that pass it; null: the page publishes no RDF.
   */
  readonly format: Extract<RdfFormat, 'rdfa' | 'jsonld'> | null;
}

/**
 * An (X)HTML page: its RDFa, then the JSON-LD of its `<script type="application/ld+json">`
 * elements into the same statements (most structured data on today's Web is published that way).
 * The RDFa rule decides over all of them: a page whose only statements are incidental publishes
 * nothing. A script element that is not JSON or not valid JSON-LD is skipped.
 */
export async function readHtml(input: SyntaxInput): Promise<HtmlReading> {
  const outcome = await parseRdfa(input);
  if (outcome !== null && typeof outcome === 'object') return { outcome, format: null };
  const rdfa = publishesRdfa(input.builder.statements);
  const { text } = input;
  // the HTML parser runs a second time only over pages that can hold JSON-LD at all; the RDFa
  // parser's own errors do not stop a page that publishes RDFa, as before JSON-LD was read
  if (outcome !== null || !/application\/ld\+json/i.test(text))
    return { outcome, format: rdfa ? 'rdfa' : null };
  const { scripts, base } = jsonLdScripts(text, input.baseIri);
  const embedded = await addEmbeddedJsonLd(input, scripts, base);
  if ('code' in embedded) return { outcome: embedded, format: null };
  if (rdfa) return { outcome, format: 'rdfa' };
  return { outcome, format: embedded.read > 0 && publishesRdfa(input.builder.statements) ? 'jsonld' : null };
}
