import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crawlConfig } from '../../pipeline/core/index.ts';
import { createFetcher, isBlockedAddress } from '../../pipeline/web/index.ts';
import { startServer, type TestServer } from './http-server.ts';

const BLOCKED = [
  '0.0.0.0',
  '0.1.2.3',
  '10.0.0.1',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8',
  '192.0.2.1',
  '192.168.1.1',
  '198.18.0.1',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  '[::1]',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  'febf::1',
  'ff02::1',
  'ff0e::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.1.2.3',
  '0:0:0:0:0:ffff:c0a8:101',
  '::127.0.0.1',
  '::10.0.0.1',
  '64:ff9b::a00:1',
  '64:ff9b:1::1',
  '2002:7f00:1::',
  '2002:c0a8:101::1',
  '2001:db8::1',
  '2001::1',
  '3fff::1',
  '100::1',
  'not-an-address',
];

const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.215.14',
  '100.63.255.255',
  '100.128.0.1',
  '172.15.255.255',
  '172.32.0.1',
  '192.0.3.1',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:81b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('isBlockedAddress', () => {
  for (const address of BLOCKED) it(`blocks ${address}`, () => assert.equal(isBlockedAddress(address), true));
  for (const address of PUBLIC) it(`allows ${address}`, () => assert.equal(isBlockedAddress(address), false));
});

describe('IP literals in URLs', () => {
  // WHATWG URL turns every IPv4 spelling into dotted decimal, so the guard sees the real address
  const FORMS = [
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['http://[0:0:0:0:0:0:0:1]/', '[::1]'],
  ] as const;
  for (const [url, hostname] of FORMS) {
    it(`${url} is ${hostname} and blocked`, () => {
      assert.equal(new URL(url).hostname, hostname);
      assert.equal(isBlockedAddress(hostname), true);
    });
  }
});

describe('address guard in the fetcher', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer((_req, res) => res.end('ok'));
  });
  after(() => server.close());

  const fetchWith = async (url: string, options: Parameters<typeof crawlConfig>[0]) => {
    const fetcher = createFetcher(crawlConfig({ delayMs: 0, timeoutMs: 3000, ...options }));
    try {
      return await fetcher.fetchDocument(url);
    } finally {
      await fetcher.close();
    }
  };

  it('refuses a host name that resolves to loopback (localhost), robots.txt included', async () => {
    const before = server.seen.length;
    const result = await fetchWith(`http://localhost:${server.port}/doc`, {});
    assert.equal(result.error, 'blocked_address');
    assert.equal(server.seen.length, before, 'no request reached the server');
  });

  for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433', '0x7f.0.0.1']) {
    it(`refuses the IP literal ${host}`, async () => {
      const before = server.seen.length;
      const result = await fetchWith(`http://${host}:${server.port}/doc`, {});
      assert.equal(result.error, 'blocked_address');
      assert.equal(result.status, null);
      assert.equal(server.seen.length, before);
    });
  }

  it('refuses a --resolve rule to 127.0.0.1 without allowPrivate', async () => {
    const rule = { host: 'data.example.org', address: '127.0.0.1', port: server.port };
    const before = server.seen.length;
    const result = await fetchWith('http://data.example.org/doc', { resolve: [rule] });
    assert.equal(result.error, 'blocked_address');
    assert.equal(server.seen.length, before);
  });

  it('follows a --resolve rule with allowPrivate, keeping the Host header', async () => {
    const rule = { host: 'data.example.org', address: '127.0.0.1', port: server.port };
    const result = await fetchWith('http://data.example.org/doc', { resolve: [rule], allowPrivate: true });
    assert.equal(result.error, null);
    assert.equal(result.body?.toString(), 'ok');
    assert.equal(server.seen.at(-1)?.headers.host, 'data.example.org');
  });
});
