/**
 * cdxjEntries reads plain records from their heads and hands every other record to Webrecorder's
 * indexer: whatever a server put in its response head and whatever records a file holds, the lines
 * must be those the indexer writes reading the gzipped file itself.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { WARCRecord, WARCSerializer } from 'warcio';
import { cdxjEntries } from '../../pipeline/archive/index.ts';
import { indexerLines } from './warc-reader.ts';

const dir = mkdtempSync(join(tmpdir(), 'cdxj-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const date = '2026-11-16T10:30:00.123Z';
const body = (text: string) => [new TextEncoder().encode(text)];

interface Exchange {
  readonly url: string;
  readonly statusline?: string;
  readonly headers?: Array<[string, string]>;
  readonly warcHeaders?: Record<string, string>;
  readonly method?: string;
  readonly type?: 'response' | 'revisit' | 'resource' | 'metadata';
}

/** A response (or other record) and, for a response, the request after it, as our writer lays them out. */
function records(e: Exchange): WARCRecord[] {
  const common = { url: e.url, date, warcVersion: 'WARC/1.1', keepHeadersCase: true } as const;
  const type = e.type ?? 'response';
  if (type === 'resource' || type === 'metadata') {
    return [WARCRecord.create({ ...common, type, warcHeaders: { 'Content-Type': 'text/plain' } }, body('x'))];
  }
  const response = WARCRecord.create(
    {
      ...common,
      type,
      statusline: e.statusline ?? 'HTTP/1.1 200 OK',
      httpHeaders: e.headers ?? [['Content-Type', 'text/turtle']],
      warcHeaders: { 'WARC-Payload-Digest': 'sha256:abc', ...e.warcHeaders },
    },
    body('<a> <b> <c> .\n'),
  );
  const request = WARCRecord.create(
    {
      ...common,
      type: 'request',
      statusline: `${e.method ?? 'GET'} ${new URL(e.url).pathname} HTTP/1.1`,
      httpHeaders: [
        ['Host', new URL(e.url).host],
        ['Content-Type', 'application/x-www-form-urlencoded'],
      ],
    },
    e.method === 'POST' ? body('q=1&r=2') : [],
  );
  return [response, request];
}

async function writeWarc(name: string, exchanges: readonly Exchange[]): Promise<void> {
  const members: Uint8Array[] = [];
  const info = WARCRecord.createWARCInfo(
    { filename: name, warcVersion: 'WARC/1.1' },
    { software: 'observatory-test' },
  );
  members.push(await WARCSerializer.serialize(info, { gzip: true }));
  for (const e of exchanges) {
    for (const record of records(e)) members.push(await WARCSerializer.serialize(record, { gzip: true }));
  }
  writeFileSync(join(dir, name), Buffer.concat(members));
}

async function ours(name: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of cdxjEntries(dir, [name])) lines.push(line);
  return lines;
}

const indexers = (name: string) => indexerLines(dir, [name]);

const HOSTILE: readonly Exchange[] = [
  { url: 'http://a.example.org/plain' },
  {
    url: 'https://www2.a.example.org:8443/q?b=2&a=1',
    headers: [['content-type', 'text/html; charset=utf-8']],
  },
  { url: 'http://a.example.org/utf8', headers: [['Content-Type', 'text/turtle; title=grüße']] },
  {
    url: 'http://a.example.org/latin1',
    headers: [
      ['X-Name', '\u00e9t\u00e9'],
      ['Content-Type', 'text/n3'],
    ],
  },
  {
    url: 'http://a.example.org/two',
    headers: [
      ['Content-Type', 'text/turtle'],
      ['Content-Type', 'text/html'],
    ],
  },
  { url: 'http://a.example.org/empty', headers: [['Content-Type', '']] },
  { url: 'http://a.example.org/semicolon', headers: [['Content-Type', ' ;charset=x ']] },
  { url: 'http://a.example.org/none', headers: [['Server', 'x']] },
  {
    url: 'http://a.example.org/bad-name',
    headers: [
      ['Content Type', 'text/html'],
      ['(x)', 'y'],
    ],
  },
  { url: 'http://a.example.org/fold', headers: [['Content-Type', 'text/turtle;\r\n charset=utf-8']] },
  {
    url: 'http://a.example.org/no-colon',
    headers: [
      ['Content-Type', 'text/turtle'],
      ['garbage\r\nmore', 'z'],
    ],
  },
  { url: 'http://a.example.org/tab', headers: [['Content-Type', 'text/turtle;\tq=1']] },
  { url: 'http://a.example.org/short-status', statusline: 'HTTP/1.1 404' },
  { url: 'http://a.example.org/odd-status', statusline: 'HTTP/1.1  500 spaced' },
  { url: 'http://a.example.org/no-status', statusline: 'HTTP/1.1' },
  { url: 'http://a.example.org/digest', warcHeaders: { 'WARC-Payload-Digest': 'nocolon' } },
  { url: 'http://a.example.org/truncated', warcHeaders: { 'WARC-Truncated': 'length' } },
  { url: 'http://a.example.org/ünicode-target' },
  { url: 'http://a.example.org/post', method: 'POST' },
  { url: 'http://a.example.org/revisit', type: 'revisit' },
  { url: 'http://a.example.org/resource', type: 'resource' },
  { url: 'http://a.example.org/metadata', type: 'metadata' },
  { url: 'urn:x-not-http' },
  { url: 'http://a.example.org/plain' },
];

test('plain records are indexed as the indexer indexes them, also when every record is plain', async () => {
  await writeWarc('plain.warc.gz', [
    { url: 'http://a.example.org/1' },
    { url: 'http://b.example.org/2?z=1&a=2', headers: [['content-type', 'application/ld+json; profile=x']] },
    {
      url: 'http://www.c.example.org/3',
      statusline: 'HTTP/1.1 303 See Other',
      headers: [['Location', '/4']],
    },
  ]);
  const lines = await ours('plain.warc.gz');
  assert.equal(lines.length, 3);
  assert.deepEqual(lines, await indexers('plain.warc.gz'));
});

test('hostile heads, other record types and a POST get the lines the indexer writes', async () => {
  await writeWarc('hostile.warc.gz', HOSTILE);
  const expected = await indexers('hostile.warc.gz');
  // every response and revisit, and the resource and metadata records; the POST's key names its body
  assert.equal(expected.length, HOSTILE.length);
  assert.ok(expected.some((line) => line.includes('__wb_method=post')));
  assert.deepEqual(await ours('hostile.warc.gz'), expected);
});
