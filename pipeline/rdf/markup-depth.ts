import { Parser } from 'htmlparser2';

/**
 * Element nesting deeper than this is refused before a markup parser sees it: saxes resolves each
 * element's namespace prefix by walking up the open elements, and the RDFa parser works up its tag
 * stack likewise, so nesting n deep costs n² (3 MB of 100,000 nested elements took minutes).
 * Real RDF/XML nests a few dozen levels; real HTML leaves some inline elements unclosed, hence
 * its larger bound.
 */
export const MAX_XML_DEPTH = 1024;
export const MAX_HTML_DEPTH = 4096;

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
 * The deepest element nesting of an XML text as saxes (RDF/XML) sees it, counted without parsing
 * it (comments, CDATA, processing instructions, declarations and quoted attribute values
 * skipped); stops counting once past `stopAbove`. Every end tag counts one level less: saxes pops
 * at least one element for each (an end tag that matches no open element pops them all), so
 * this never counts less than saxes nests.
 */
export function xmlDepth(text: string, stopAbove: number): number {
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
    else if (text.charCodeAt(j - 1) !== 0x2f) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAbove) return deepest;
    }
    i = text.indexOf('<', j);
  }
  return deepest;
}

/**
 * The deepest element nesting of an (X)HTML text as the RDFa parser sees it, counted by the HTML
 * parser it is built on (htmlparser2, with its options): the parser's own open and close events,
 * so void elements, end tags implied by a start tag (`<li>` closing an open `<li>`), end tags
 * that match no open element (ignored: `<div></b>` nests one deeper each time), and text inside
 * `<script>` are all counted exactly as that parser stacks them. Stops once past `stopAbove`.
 */
export function htmlDepth(text: string, stopAbove: number): number {
  let depth = 0;
  let deepest = 0;
  const parser = new Parser(
    {
      onopentagname() {
        depth++;
        if (depth > deepest) deepest = depth;
        if (deepest > stopAbove) parser.pause();
      },
      onclosetag() {
        depth--;
      },
    },
    // as parse-rdfa.ts configures it: HTML and XHTML profiles both run htmlparser2 in HTML mode
    { decodeEntities: false, recognizeSelfClosing: true },
  );
  parser.write(text);
  return deepest;
}
