/**
 * Element nesting deeper than this is refused before a markup parser sees it: saxes resolves each
 * element's namespace prefix by walking up the open elements, and the RDFa parser works up its tag
 * stack likewise, so nesting n deep costs n² (3 MB of 100,000 nested elements took minutes).
 * Real RDF/XML nests a few dozen levels; HTML is counted loosely (an unclosed `<p>` or `<li>`
 * counts as open), hence its larger bound.
 */
export const MAX_XML_DEPTH = 1024;
export const MAX_HTML_DEPTH = 4096;

/** HTML elements that never have content or an end tag. */
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Where the construct starting at `i` (`<!--`, `<![CDATA[`, `<?`, `<!`) ends: the index after it. */
function skipMarkup(text: string, i: number): number {
  const close = text.startsWith('<!--', i)
    ? '-->'
    : text.startsWith('<![CDATA[', i)
      ? ']]>'
      : text[i + 1] === '?'
        ? '?>'
        : '>';
  const end = text.indexOf(close, i + 2);
  return end < 0 ? text.length : end + close.length;
}

/**
 * The deepest element nesting of an XML or HTML text, counted without parsing it (comments,
 * CDATA, processing instructions, declarations and quoted attribute values skipped; in HTML, void
 * elements too); stops counting once past `stopAbove`.
 */
export function markupDepth(text: string, html: boolean, stopAbove: number): number {
  let depth = 0;
  let deepest = 0;
  let i = text.indexOf('<');
  while (i >= 0 && i < text.length) {
    const next = text.charCodeAt(i + 1);
    if (next === 0x21 || next === 0x3f) {
      i = text.indexOf('<', skipMarkup(text, i));
      continue;
    }
    let j = i + 1;
    let quote = 0;
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) quote = c;
      else if (c === 0x3e) break;
    }
    if (next === 0x2f) depth--;
    else if (text.charCodeAt(j - 1) !== 0x2f && !(html && VOID_ELEMENTS.has(tagName(text, i + 1)))) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAbove) return deepest;
    }
    i = text.indexOf('<', j);
  }
  return deepest;
}

function tagName(text: string, from: number): string {
  const match = /^[A-Za-z][^\s/>]*/.exec(text.slice(from, from + 16));
  return match ? match[0].toLowerCase() : '';
}
