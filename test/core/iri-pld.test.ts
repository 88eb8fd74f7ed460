import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  NO_HOST_PLD,
  normaliseIri,
  payLevelDomain,
  stripFragment,
  urlPld,
} from '../../pipeline/core/index.ts';

const iris: Array<[string, string | null]> = [
  ['HTTP://DBpedia.ORG:80/resource/Berlin#this', 'http://dbpedia.org/resource/Berlin'],
  ['https://example.org:443/a?b=c#frag', 'https://example.org/a?b=c'],
  ['http://example.org:8080/x', 'http://example.org:8080/x'],
  ['http://example.org', 'http://example.org/'],
  ['http://bücher.example/ä', 'http://xn--bcher-kva.example/%C3%A4'],
  ['mailto:someone@example.org', null],
  ['urn:isbn:123', null],
  ['_:b0', null],
  ['http://', null],
  ['not a url', null],
];

for (const [input, expected] of iris) {
  test(`normaliseIri(${JSON.stringify(input)})`, () => assert.equal(normaliseIri(input), expected));
}

const plds: Array<[string, string]> = [
  ['dbpedia.org', 'dbpedia.org'],
  ['de.dbpedia.org', 'dbpedia.org'],
  ['data.example.ac.uk', 'example.ac.uk'],
  ['a.b.c.example.co.uk', 'example.co.uk'],
  ['user.github.io', 'github.io'],
  ['WWW.W3.ORG', 'w3.org'],
  ['127.0.0.1', '127.0.0.1'],
  ['localhost', 'localhost'],
];

for (const [host, pld] of plds) {
  test(`payLevelDomain(${host}) is ${pld}`, () => assert.equal(payLevelDomain(host), pld));
}

// the PLD of a URL is always derived from its host, never the URL itself (a host the Public Suffix
// List library refuses, such as `evil{}.org`, once left the whole URL in documents.pld)
const urlPlds: Array<[string, string]> = [
  ['http://sws.geonames.org/2950159/', 'geonames.org'],
  ['http://evil{}.org/x', 'evil{}.org'],
  ['http://a.b.evil{}.org/x?y', 'evil{}.org'],
  ['http://[::1]:8080/a', '::1'],
  ['http://localhost:3000/', 'localhost'],
  ['http://bücher.example/x', 'xn--bcher-kva.example'],
  ['not a url', NO_HOST_PLD],
  ['urn:isbn:0451450523', NO_HOST_PLD],
];
for (const [url, pld] of urlPlds) {
  test(`urlPld(${url}) is ${pld}`, () => assert.equal(urlPld(url), pld));
}

test('stripFragment keeps everything before #', () => {
  assert.equal(stripFragment('http://xmlns.com/foaf/0.1/#term'), 'http://xmlns.com/foaf/0.1/');
  assert.equal(stripFragment('http://xmlns.com/foaf/0.1/'), 'http://xmlns.com/foaf/0.1/');
});
