// Inline Markdown as the data dictionary and the stats stage write it (code spans, emphasis, links)
// and the bare references to the project's docs in captions (`docs/crawling.md`), as pieces the site
// renders as elements: no raw Markdown reaches a page, and every reference to a doc is a link.

/** One run of text and how it is shown. */
export type Piece =
  | { readonly kind: 'text' | 'code' | 'em'; readonly text: string }
  | { readonly kind: 'link'; readonly text: string; readonly href: string };

/** A link, emphasis, or a bare path of a file under docs/ (the stats stage's captions name them so). */
const SPAN = /\[([^\]]+)\]\(([^)\s]+)\)|\*([^*\s](?:[^*]*[^*\s])?)\*|\b(docs\/[\w./-]*\w\.(?:md|sql)(?:#[\w-]+)?)/g;

/**
 * `text` as pieces. A relative link target is a path beside `from` (the doc the text was written
 * in: `crawling.md#x`, `#x`, `queries/`), which `toFile` turns into the URL of that file of the
 * repository; absolute targets stay as they are.
 */
export function inlineMarkdown(text: string, from: string, toFile: (path: string) => string): Piece[] {
  const folder = from.slice(0, from.lastIndexOf('/') + 1);
  const href = (target: string) =>
    /^[a-z]+:/i.test(target) ? target : toFile(target.startsWith('#') ? `${from}${target}` : `${folder}${target}`);
  const pieces: Piece[] = [];
  text
    .replaceAll('\\|', '|')
    .split('`')
    .forEach((part, i) => {
      if (i % 2 === 1) return pieces.push({ kind: 'code', text: part });
      let at = 0;
      for (const m of part.matchAll(SPAN)) {
        if (m.index > at) pieces.push({ kind: 'text', text: part.slice(at, m.index) });
        if (m[1] !== undefined) pieces.push({ kind: 'link', text: m[1], href: href(m[2]) });
        else if (m[3] !== undefined) pieces.push({ kind: 'em', text: m[3] });
        else pieces.push({ kind: 'link', text: m[4], href: toFile(m[4]) });
        at = m.index + m[0].length;
      }
      if (at < part.length) pieces.push({ kind: 'text', text: part.slice(at) });
    });
  return pieces;
}
