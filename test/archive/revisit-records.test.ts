/**
 * Which record an exchange is archived as, and what a later crawl finds behind each (responseBehind):
 * one case per line, records written by the crawl's own writer into a WARC file.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import { type Referent, responseBehind } from '../../pipeline/archive/index.ts';
import { exchangeMembers } from '../../pipeline/archive/warc-records.ts';
import type { WarcPointer } from '../../pipeline/core/index.ts';
import type { ExchangeRecord, Truncation } from '../../pipeline/web/index.ts';
import { sha256, splitRecord } from './warc-reader.ts';

const URL = 'http://a.example.org/doc/1';
const BODY = Buffer.from('<http://a.example.org/s> <http://example.org/p> "o" .\n');
const dir = mkdtempSync(join(tmpdir(), 'revisit-records-'));
const FILE = '2026-01-05-00000.warc.gz';

function exchange(status: number, body: Buffer, truncated: Truncation | null = null): ExchangeRecord {
  return {
    id: 1,
    url: URL,
    pld: 'example.org',
    robots: false,
    sentAt: Date.UTC(2026, 0, 5),
    waitMs: 0,
    serviceMs: 1,
    requestHead: `GET /doc/1 HTTP/1.1\r\nhost: a.example.org\r\n\r\n`,
    remoteAddress: '127.0.0.1',
    response: {
      status,
      statusText: status === 304 ? 'Not Modified' : 'OK',
      headers: [['Content-Type', 'text/turtle']],
      body: [body],
      bodyBytes: body.length,
      truncated,
    },
    decodedBytes: body.length,
    error: null,
  };
}

/** Appends a gzip member to the file and says where it lies. */
function append(bytes: Buffer): WarcPointer {
  const path = join(dir, FILE);
  const offset = existsSync(path) ? statSync(path).size : 0;
  appendFileSync(path, bytes);
  return { filename: FILE, offset, length: bytes.length };
}

async function archived(record: ExchangeRecord, earlier: Referent | null = null) {
  const members = await exchangeMembers(record, earlier === null ? null : async () => earlier);
  const pointer = append(members!.response.bytes);
  return { pointer, head: splitRecord(zlib.gunzipSync(members!.response.bytes)).headers };
}

test('an exchange is archived as a response or a revisit, and refers to a response only', async () => {
  const original = await archived(exchange(200, BODY));
  assert.equal(original.head.get('warc-type'), 'response');
  const behindOriginal = await responseBehind(dir, original.pointer);
  assert.deepEqual(behindOriginal, {
    recordId: original.head.get('warc-record-id'),
    uri: URL,
    date: original.head.get('warc-date'),
    payloadDigest: sha256(BODY),
    pointer: original.pointer,
  });
  const referent = behindOriginal!;
  const cases: Array<[string, ExchangeRecord, string, string | null]> = [
    ['the same payload', exchange(200, BODY), 'revisit', 'identical-payload-digest'],
    ['another payload', exchange(200, Buffer.from('changed')), 'response', null],
    ['the same payload cut short', exchange(200, BODY, 'length'), 'response', null],
    ['a 304', exchange(304, Buffer.alloc(0)), 'revisit', 'server-not-modified'],
  ];
  for (const [what, record, type, profile] of cases) {
    const { pointer, head } = await archived(record, referent);
    assert.equal(head.get('warc-type'), type, what);
    assert.equal(head.get('warc-profile')?.split('/').at(-1) ?? null, profile, what);
    // what the next crawl refers to: always the original response, never a revisit
    const behind = await responseBehind(dir, pointer);
    assert.deepEqual(behind, type === 'revisit' ? referent : { ...behind!, pointer }, what);
  }
  const unknown = await archived(exchange(304, Buffer.alloc(0)));
  assert.equal(unknown.head.get('warc-profile')?.endsWith('server-not-modified'), true);
  assert.equal(await responseBehind(dir, unknown.pointer), null, 'a 304 that refers to nothing');
});

test('a 304 archived as a response, before revisits, is nothing to refer to', async () => {
  const record = WARCRecord.create(
    { url: URL, type: 'response', warcVersion: 'WARC/1.1', statusline: 'HTTP/1.1 304 Not Modified' },
    [],
  );
  const pointer = append(Buffer.from(await WARCSerializer.serialize(record, { gzip: true })));
  assert.equal(await responseBehind(dir, pointer), null);
  assert.equal(await responseBehind(dir, { ...pointer, filename: 'missing-00000.warc.gz' }), null);
});
