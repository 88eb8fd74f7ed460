/**
 * RDFa 1.1 in HTML5: one `div about` per subject, one empty `span property` per statement with
 * the object in `resource` or `content`, so that the page yields exactly the statements given.
 * `accidentalPage` is the other kind of HTML on the Web: only stylesheet/icon links and a title.
 */
import type { Quad } from 'n3';
import { compact, PREFIXES } from './prefixes.ts';
import { groupBySubject } from './subject-groups.ts';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;',
  );
}

function curie(iri: string): string {
  const c = compact(iri);
  return c ? `${c.prefix}:${c.local}` : iri;
}

function ref(termType: string, value: string): string {
  return termType === 'BlankNode' ? `[_:${value}]` : escapeHtml(value);
}

/** Serializes statements (graph ignored) as an HTML5+RDFa page titled `title`. */
export function writeRdfa(quads: readonly Quad[], title: string, charset = 'utf-8'): Buffer {
  const prefix = Object.entries(PREFIXES)
    .map(([p, ns]) => `${p}: ${ns}`)
    .join(' ');
  const body: string[] = [];
  for (const list of groupBySubject(quads)) {
    const s = list[0].subject;
    body.push(`<div about="${ref(s.termType, s.value)}">`);
    for (const q of list) {
      const p = curie(q.predicate.value);
      const o = q.object;
      if (o.termType === 'NamedNode' || o.termType === 'BlankNode') {
        body.push(`  <span property="${p}" resource="${ref(o.termType, o.value)}"></span>`);
      } else if (o.termType === 'Literal') {
        const extra = o.language
          ? ` lang="${o.language}"`
          : o.datatype.value !== XSD_STRING
            ? ` datatype="${escapeHtml(curie(o.datatype.value))}"`
            : '';
        body.push(`  <span property="${p}" content="${escapeHtml(o.value)}"${extra}></span>`);
      }
    }
    body.push('</div>');
  }
  const html = `<!DOCTYPE html>\n<html prefix="${prefix}">\n<head>\n<meta charset="${charset}">\n<title>${escapeHtml(title)}</title>\n</head>\n<body>\n${body.join('\n')}\n</body>\n</html>\n`;
  return Buffer.from(html, charset.toLowerCase() === 'iso-8859-1' ? 'latin1' : 'utf8');
}

/** An HTML page whose only RDFa is accidental (stylesheet and icon links, a title): not Linked Data. */
export function accidentalPage(title: string): Buffer {
  return Buffer.from(
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${escapeHtml(title)}</title>\n<link rel="stylesheet" href="/style.css">\n<link rel="icon" href="/favicon.ico">\n<link rel="alternate" type="application/rss+xml" href="/feed.xml">\n</head>\n<body>\n<h1>${escapeHtml(title)}</h1>\n<p>This page moved. Please update your bookmarks.</p>\n</body>\n</html>\n`,
  );
}
