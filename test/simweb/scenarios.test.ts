import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import {
  brotliDecompressSync,
  createBrotliDecompress,
  createGunzip,
  gunzipSync,
  inflateSync,
} from 'node:zlib';
import { request } from 'undici';
import { PRODUCT_TOKEN } from '../../pipeline/core/index.ts';
import { SCENARIOS, type Scenario, type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { countStatements } from './count-statements.ts';
import { type SimResponse, simGet } from './sim-client.ts';

// robots-parser is CommonJS (`module.exports = fn`); its typings only fit a bundler's interop
const robotsParser = createRequire(import.meta.url)(
  'robots-parser',
) as typeof import('robots-parser').default;

let sim: SimWeb;
before(async () => {
  sim = await startSimWeb({ seed: 7, docs: 400, plds: 40, latencyScale: 0 });
});
after(() => sim.close());

const RDF_ACCEPT =
  'application/rdf+xml, text/turtle, application/ld+json;q=0.9, application/n-triples;q=0.9, */*;q=0.1';

/** Follows redirects like a crawler, up to 10 hops, stopping at a repeat. */
async function follow(s: Scenario): Promise<{ res: SimResponse; hops: number; url: string; loop: boolean }> {
  let url = s.url;
  const seen = new Set<string>();
  for (let hops = 0; ; hops++) {
    seen.add(url);
    const res = await simGet(sim, url, {
      accept: s.accept ?? RDF_ACCEPT,
      'accept-encoding': s.acceptEncoding ?? 'identity',
    });
    const location = res.headers.location;
    if (res.status < 300 || res.status >= 400 || !location || hops === 10)
      return { res, hops, url, loop: false };
    const next = new URL(location, url).href;
    if (seen.has(next)) return { res, hops: hops + 1, url, loop: true };
    url = next;
  }
}

function decode(res: SimResponse): Buffer {
  const e = res.headers['content-encoding'];
  if (e === 'gzip') return gunzipSync(res.body);
  if (e === 'br') return brotliDecompressSync(res.body);
  if (e === 'deflate') return inflateSync(res.body);
  return res.body;
}

function text(res: SimResponse, body: Buffer): string {
  const latin1 =
    /iso-8859-1/i.test(res.headers['content-type'] ?? '') ||
    /^<\?xml[^>]*ISO-8859-1/i.test(body.subarray(0, 100).toString('latin1'));
  return body.toString(latin1 ? 'latin1' : 'utf8');
}

const by = (group: string) => Object.values(SCENARIOS).filter((s) => s.group === group);

describe('status, redirect, conneg and format scenarios answer as catalogued', () => {
  for (const s of [...by('status'), ...by('redirect'), ...by('conneg'), ...by('format')]) {
    test(s.name, async () => {
      const { res, hops, url, loop } = await follow(s);
      const e = s.expect;
      if (e.error === 'redirect_loop') return assert.ok(loop && hops === e.redirects, `loop after ${hops}`);
      if (e.error === 'redirect_limit') return assert.equal(hops, e.redirects);
      if (e.error === 'redirect_invalid') return assert.ok(res.status === e.status && !res.headers.location);
      assert.equal(res.status, e.status);
      assert.equal(hops, e.redirects);
      assert.equal(url, e.finalUrl);
      if (s.name === 'oversized') return assert.ok(res.body.length > 32 * 1024 * 1024);
      if (e.format === null && e.error === 'not_rdf') {
        const c = await countStatements('rdfa', res.body.toString(), url);
        return assert.ok(c.statements <= 3, 'only accidental RDFa');
      }
      if (e.format === null) return;
      const c = await countStatements(e.format, text(res, decode(res)), url);
      assert.equal(c.statements, e.statements);
      assert.equal(c.error !== null, e.error === 'parse', String(c.error));
    });
  }
});

describe('encoding scenarios', () => {
  for (const s of by('encoding')) {
    test(s.name, async () => {
      const { res } = await follow(s);
      assert.equal(res.status, 200);
      const e = s.expect;
      if (e.error === 'too_large') {
        const inflater = res.headers['content-encoding'] === 'br' ? createBrotliDecompress() : createGunzip();
        let size = 0;
        inflater.on('data', (c: Buffer) => {
          size += c.length;
        });
        await new Promise((r) => inflater.end(res.body, () => r(null)));
        await new Promise((r) => inflater.once('end', r));
        assert.ok(res.body.length < 1024 * 1024 && size > 100 * 1024 * 1024, `${res.body.length} -> ${size}`);
      } else if (e.error === 'bad_encoding') {
        assert.throws(() => {
          if (res.headers['content-encoding'] !== 'gzip')
            throw new Error(`no decoder for ${res.headers['content-encoding']}`);
          gunzipSync(res.body);
        });
      } else {
        const c = await countStatements('turtle', decode(res).toString(), e.finalUrl);
        assert.equal(c.statements, e.statements);
      }
    });
  }
});

describe('transport scenarios', () => {
  test('hang: no response within a bounded wait', async () => {
    await assert.rejects(simGet(sim, SCENARIOS.hang.url, {}, 400), /abort|timeout/i);
  });
  test('hang-after-headers: headers arrive, the body never completes', async () => {
    const u = new URL(SCENARIOS['hang-after-headers'].url);
    const res = await request(`${sim.origin}${u.pathname}`, {
      headers: { host: u.host },
      signal: AbortSignal.timeout(600),
    });
    assert.equal(res.statusCode, 200);
    await assert.rejects(res.body.arrayBuffer(), /abort|timeout/i);
  });
  test('trickle: the whole body arrives in many small chunks', async () => {
    const u = new URL(SCENARIOS.trickle.url);
    const res = await request(`${sim.origin}${u.pathname}`, {
      headers: { host: u.host },
      signal: AbortSignal.timeout(20_000),
    });
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c as Buffer);
    assert.ok(chunks.length >= 5, `${chunks.length} chunks`);
    const c = await countStatements('turtle', Buffer.concat(chunks).toString(), SCENARIOS.trickle.url);
    assert.equal(c.statements, SCENARIOS.trickle.expect.statements);
  });
  test('trickle-forever: bytes keep coming, the body never ends', async () => {
    const u = new URL(SCENARIOS['trickle-forever'].url);
    const res = await request(`${sim.origin}${u.pathname}`, {
      headers: { host: u.host },
      signal: AbortSignal.timeout(1500),
    });
    assert.equal(res.statusCode, 200);
    await assert.rejects(res.body.arrayBuffer(), /abort|timeout/i);
  });
  for (const name of ['reset-before-response', 'reset-mid-body']) {
    test(`${name}: the connection is reset`, async () => {
      await assert.rejects(simGet(sim, SCENARIOS[name].url), (e: Error) => !/abort|timeout/i.test(e.message));
    });
  }
  test('slow: answers, later', async () => {
    const res = await simGet(sim, SCENARIOS.slow.url);
    assert.equal(res.status, 200);
  });
});

describe('robots.txt scenarios agree with robots-parser for our product token', () => {
  for (const s of by('robots')) {
    test(s.name, async () => {
      const origin = new URL(s.url).origin;
      const r = await follow({ ...s, url: `${origin}/robots.txt` });
      const unavailable = r.res.status >= 500;
      assert.equal(unavailable, s.expect.error === 'robots_unavailable');
      if (!unavailable) {
        const body = r.res.status === 200 ? r.res.body.subarray(0, 500 * 1024).toString() : '';
        const allowed = robotsParser(`${origin}/robots.txt`, body).isAllowed(s.url, PRODUCT_TOKEN) !== false;
        assert.equal(allowed, s.expect.error === null);
      }
      const doc = await simGet(sim, s.url);
      assert.equal(doc.status, 200);
    });
  }
});
