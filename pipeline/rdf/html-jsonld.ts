import { Parser } from 'htmlparser2';

/** What an HTML page embeds as JSON-LD. */
export interface JsonLdScripts {
  /** The text of each `<script type="application/ld+json">` element, in document order. */
  readonly scripts: readonly string[];
  /** The base IRI of the page: its first `<base href>`, resolved against `documentUrl`. */
  readonly base: string;
}

/** `application/ld+json`, with any parameters and letter case a page may give the type. */
function isJsonLdType(type: string | undefined): boolean {
  return type !== undefined && type.split(';')[0].trim().toLowerCase() === 'application/ld+json';
}

/**
 * The JSON-LD script elements of an HTML page (JSON-LD 1.1, section 7.3, "Embedding JSON-LD in
 * HTML Documents"), read with the HTML parser the RDFa parser uses, so a `</script>` inside a
 * comment or an attribute is read the way the page's RDFa is.
 */
export function jsonLdScripts(html: string, documentUrl: string): JsonLdScripts {
  const scripts: string[] = [];
  let base = documentUrl;
  let baseSeen = false;
  let script: string[] | null = null;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'script' && isJsonLdType(attributes.type)) script = [];
        else if (name === 'base' && !baseSeen && attributes.href !== undefined) {
          baseSeen = true;
          base = URL.parse(attributes.href, documentUrl)?.href ?? documentUrl;
        }
      },
      ontext(text) {
        script?.push(text);
      },
      onclosetag(name) {
        if (name !== 'script' || script === null) return;
        scripts.push(script.join(''));
        script = null;
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
  return { scripts, base };
}
