/**
 * The answer for a request to a generated document: lifetime, sprinkled faults, the DBpedia-style
 * 303, content negotiation, validators, and finally the serialized graph at the virtual time.
 */
import { negotiate } from './conneg.ts';
import { type DocumentState, documentState, isAlive, versionOf } from './document-state.ts';
import type { PathMatch } from './documents.ts';
import { flappingStatus } from './faults.ts';
import { formatInfo } from './formats.ts';
import { documentGraph, statementCount } from './graph.ts';
import { hash32 } from './random.ts';
import { accidentalPage } from './rdfa-writer.ts';
import { type Reply, redirectReply, statusReply } from './reply.ts';
import { contentTypeOf, serialize } from './serialize.ts';
import { type Conditions, notModified, validatorHeaders } from './validators.ts';
import type { GeneratedWeb } from './web-shape.ts';

/** The parts of a request a document's answer depends on. */
export interface DocRequest extends Conditions {
  readonly search: string;
  readonly accept: string | undefined;
}

const CHAIN_STATUSES = [301, 302, 307, 308];

/** Breaks a serialized body part way, so that parsers fail after some statements. */
function corrupt(body: Buffer): Buffer {
  const cut = Math.floor(body.length * 0.6);
  return Buffer.concat([body.subarray(0, cut), Buffer.from('\n<<< @@ {"broken" <\n')]);
}

function faultReply(state: DocumentState, web: GeneratedWeb, t: number, req: DocRequest): Reply | null {
  const f = state.fault;
  const url = state.address.docUrl;
  if (f === null) return null;
  if (f.startsWith('status-')) return statusReply(Number(f.slice(7)), {}, 'Error\n');
  const flap = flappingStatus(web, state.address.doc, f, t);
  if (flap !== null)
    return statusReply(flap, flap === 429 || flap === 503 ? { 'retry-after': '120' } : {}, 'Error\n');
  if (f === 'redirect-loop') return redirectReply(302, req.search === '' ? `${url}?loop=1` : url);
  if (f === 'redirect-chain') {
    const hop = Number(/^\?hop=(\d)$/.exec(req.search)?.[1] ?? 0);
    if (hop < 3) return redirectReply(CHAIN_STATUSES[(state.address.doc + hop) % 4], `${url}?hop=${hop + 1}`);
  }
  return null;
}

/** The answer to a request for a generated document at virtual time `t`. */
export function documentReply(web: GeneratedWeb, match: PathMatch, t: number, req: DocRequest): Reply {
  const state = documentState(web, match.address.doc);
  const a = state.address;
  if (!isAlive(state, t)) {
    const gone = state.life.diedAt !== null && t >= state.life.diedAt;
    return statusReply(gone ? state.life.goneStatus : 404, {}, gone ? 'Gone\n' : 'Not found\n');
  }
  if (match.kind === 'resource') return redirectReply(303, a.docUrl);
  const faulty = faultReply(state, web, t, req);
  if (faulty) return faulty;
  const f = state.fault;
  const expectedSearch = f === 'redirect-chain' ? '?hop=3' : f === 'redirect-loop' ? '?loop=1' : '';
  if (req.search !== expectedSearch && f !== 'redirect-loop') return statusReply(404, {}, 'Not found\n');
  if (f === 'soft-404-html') {
    const page = accidentalPage(`${a.name} moved`);
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: () => page,
      transport: 'normal',
      compress: a.pld.compress,
      delayMs: 0,
      outcome: { format: null, statements: null, error: 'not_rdf' },
    };
  }
  const format = negotiate(a.pld.conneg, state.format, req.accept);
  if (format === null)
    return statusReply(406, {}, `Not Acceptable: this server speaks ${formatInfo(state.format).mediaType}\n`);
  const version = versionOf(web, state, t);
  const habit = a.pld.validators;
  const headers = validatorHeaders(habit, { key: web.key, doc: a.doc, version, format, at: t });
  if (notModified(habit, headers, req)) return statusReply(304, headers);
  if (a.pld.conneg === 'honour') headers.vary = 'Accept';
  const latin1 = f === 'latin1' && (format === 'rdfxml' || format === 'rdfa');
  const contentType = contentTypeOf(format, latin1);
  const render = () =>
    serialize(documentGraph(web, state, version), format, a.docUrl, { latin1, title: a.name }).body;
  if (f === 'wrong-type')
    headers['content-type'] = hash32(a.doc) % 2 ? 'text/plain' : 'application/octet-stream';
  else if (f !== 'missing-type') headers['content-type'] = contentType;
  const broken = f === 'syntax-error';
  return {
    status: 200,
    headers,
    body: () => (broken ? corrupt(render()) : render()),
    transport:
      f === 'hang' ? 'hang' : f === 'trickle' ? 'trickle' : f === 'reset' ? 'reset-mid-body' : 'normal',
    compress: a.pld.compress,
    delayMs: 0,
    outcome: {
      format,
      statements: broken ? null : statementCount(web, state, version),
      error: broken ? 'parse' : f === 'hang' ? 'timeout' : f === 'reset' ? 'reset' : null,
    },
  };
}
