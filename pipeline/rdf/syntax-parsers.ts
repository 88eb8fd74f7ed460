import type { RdfFormat } from '../core/index.ts';
import { parseJsonLd } from './parse-jsonld.ts';
import { lineFormatParser, turtleParser } from './parse-line-formats.ts';
import { n3FamilyParser } from './parse-n3-family.ts';
import { parseRdfa } from './parse-rdfa.ts';
import { parseRdfXml } from './parse-rdfxml.ts';
import type { SyntaxParser } from './syntax-parser.ts';

/** The adapter for each syntax the observatory reads. */
export const SYNTAX_PARSERS: Readonly<Record<RdfFormat, SyntaxParser>> = {
  rdfxml: parseRdfXml,
  turtle: turtleParser(),
  ntriples: lineFormatParser('N-Triples'),
  nquads: lineFormatParser('N-Quads'),
  trig: n3FamilyParser('TriG'),
  n3: n3FamilyParser('N3'),
  jsonld: parseJsonLd,
  rdfa: parseRdfa,
};
