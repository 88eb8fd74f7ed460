/**
 * The target of the first `rel="alternate"; type="application/ld+json"` link of an HTTP Link
 * header (RFC 8288), resolved against `base`: where JSON-LD 1.1 (API, section 9.1) says a
 * processor finds the JSON-LD of a resource that answered in another type, as schema.org's
 * context does (its URL answers HTML with such a link). Null when there is none.
 */
export function alternateJsonLd(header: string | undefined, base: string): string | null {
  if (!header) return null;
  // link-values are separated by commas outside <...> and quoted strings
  for (const value of header.match(/<[^>]*>(?:[^,"]|"(?:[^"\\]|\\.)*")*/g) ?? []) {
    const target = /^<([^>]*)>/.exec(value)?.[1];
    const params = new Map<string, string>();
    for (const [, name, quoted, token] of value.matchAll(
      /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;,]*))/g,
    )) {
      if (!params.has(name.toLowerCase())) params.set(name.toLowerCase(), quoted ?? token);
    }
    const rels = (params.get('rel') ?? '').toLowerCase().split(/\s+/);
    const type = (params.get('type') ?? '').split(';')[0].trim().toLowerCase();
    if (target !== undefined && rels.includes('alternate') && type === 'application/ld+json') {
      return URL.parse(target, base)?.href ?? null;
    }
  }
  return null;
}

/** application/json, application/ld+json and every other `+json` type. */
export function isJsonType(contentType: string | undefined | null): boolean {
  return /^\s*application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i.test(contentType ?? '');
}
