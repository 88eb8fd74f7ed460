import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UrlTable } from '../../pipeline/crawl/url-table.ts';

test('a URL table numbers URLs in order, finds each again, and gives back the same text', () => {
  const table = new UrlTable();
  // enough URLs to grow the byte buffer, the columns and the hash table several times over
  const urls = Array.from({ length: 20_000 }, (_, i) => `http://pld${i % 97}.example/resource/entity-${i}`);
  urls.push(
    'http://example.org/caf%C3%A9',
    'http://example.org/',
    'http://example.org',
    'https://bücher.example/ü',
  );
  urls.forEach((url, i) => {
    assert.equal(table.id(url), undefined, url);
    assert.equal(table.add(url), i);
  });
  assert.equal(table.size, urls.length);
  urls.forEach((url, i) => {
    assert.equal(table.id(url), i, url);
    assert.equal(table.url(i), url);
  });
  // a prefix or an extension of a stored URL is another URL
  assert.equal(table.id('http://pld0.example/resource/entity-'), undefined);
  assert.equal(table.id('http://pld0.example/resource/entity-00'), undefined);
});

test('a URL table orders ASCII URLs as their strings compare', () => {
  const table = new UrlTable();
  const urls = ['http://b.org/x', 'http://a.org/yy', 'http://a.org/y', 'https://a.org/', 'http://A.org/'];
  for (const url of urls) table.add(url);
  const ids = urls.map((_, i) => i).sort((a, b) => table.compare(a, b));
  assert.deepEqual(
    ids.map((id) => urls[id]),
    [...urls].sort(),
  );
  assert.equal(table.compare(0, 0), 0);
});
