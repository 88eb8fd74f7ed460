import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { crawlConfig, ObservatoryError } from '../../pipeline/core/index.ts';
import { createFetcher } from '../../pipeline/web/index.ts';
import { type LookupAll, pinnedConnector, resolveTarget } from '../../pipeline/web/pinned-connector.ts';
import { startServer, type TestServer } from '../web/http-server.ts';

/** The address guard against hostile address forms and a rebinding resolver, at the real connector. */
let server: TestServer;
before(async () => {
  server = await startServer((_req, res) => res.end('reached'));
});
after(() => server.close());

const guarded = crawlConfig({ delayMs: 0, timeoutMs: 3000 });
const PUBLIC = '93.184.215.14';

/** A resolver that answers each call with the next list of addresses (the last one repeats). */
function rebinding(...answers: string[][]): { lookup: LookupAll; calls: string[] } {
  const calls: string[] = [];
  const lookup: LookupAll = async (host) => {
    calls.push(host);
    return answers[Math.min(calls.length, answers.length) - 1];
  };
  return { lookup, calls };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof ObservatoryError ? error.code : `not an ObservatoryError: ${error}`;
  }
  return 'allowed';
}

test('every spelling of loopback in a URL is refused by the fetcher and never reaches the server', async () => {
  const p = server.port;
  const urls = [
    `http://127.0.0.1:${p}/`,
    `http://127.1:${p}/`,
    `http://2130706433:${p}/`,
    `http://0x7f000001:${p}/`,
    `http://0x7f.1:${p}/`,
    `http://017700000001:${p}/`,
    `http://0177.0.0.1:${p}/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://[::127.0.0.1]:${p}/`,
    `http://[64:ff9b::7f00:1]:${p}/`,
    `http://[2002:7f00:1::]:${p}/`,
    `http://[::1]:${p}/`,
    `http://0.0.0.0:${p}/`,
    `http://169.254.169.254:${p}/latest/meta-data/`,
    `http://[fe80::1]:${p}/`,
    `http://10.0.0.1:${p}/`,
  ];
  const fetcher = createFetcher(guarded);
  try {
    const errors = [];
    for (const url of urls) errors.push([url, (await fetcher.fetchDocument(url)).error]);
    assert.deepEqual(
      errors,
      urls.map((url) => [url, 'blocked_address']),
    );
  } finally {
    await fetcher.close();
  }
  assert.deepEqual(server.seen, [], 'the server saw no request');
});

test('DNS rebinding: each new connection is checked on its own answer, and the checked address is the one used', async () => {
  const { lookup, calls } = rebinding([PUBLIC], ['127.0.0.1'], [PUBLIC, '10.1.2.3'], ['::ffff:192.168.0.1']);
  assert.deepEqual(await resolveTarget(guarded, 'rebind.test', 80, lookup), { address: PUBLIC, port: 80 });
  assert.equal(await refusal(resolveTarget(guarded, 'rebind.test', 80, lookup)), 'blocked_address');
  assert.equal(
    await refusal(resolveTarget(guarded, 'rebind.test', 80, lookup)),
    'blocked_address',
    'one private address among public ones is enough',
  );
  assert.equal(await refusal(resolveTarget(guarded, 'rebind.test', 80, lookup)), 'blocked_address');
  assert.deepEqual(calls, ['rebind.test', 'rebind.test', 'rebind.test', 'rebind.test']);
});

test('the connector refuses a rebound name before connecting, and allowPrivate lifts only the guard', async () => {
  const url = `http://rebind.test:${server.port}/`;
  const refused = rebinding(['127.0.0.1']);
  const agent = new Agent({ connect: pinnedConnector(guarded, refused.lookup) });
  try {
    assert.equal(await refusal(request(url, { dispatcher: agent })), 'blocked_address');
  } finally {
    await agent.close();
  }
  assert.equal(server.seen.length, 0, 'nothing reached the server');

  const open = rebinding(['127.0.0.1']);
  const allowed = new Agent({ connect: pinnedConnector({ ...guarded, allowPrivate: true }, open.lookup) });
  try {
    const response = await request(url, { dispatcher: allowed });
    assert.equal(await response.body.text(), 'reached');
  } finally {
    await allowed.close();
  }
  assert.equal(open.calls.length, 1, 'one lookup for the connection: no second resolution to rebind');
  assert.equal(server.seen[0]?.host, 'rebind.test', 'the Host header stays the name');
});

test('a resolver failure or an empty answer is dns, and .invalid names never reach the resolver', async () => {
  const failing: LookupAll = async () => {
    throw new Error('SERVFAIL');
  };
  assert.equal(await refusal(resolveTarget(guarded, 'broken.test', 80, failing)), 'dns');
  assert.equal(await refusal(resolveTarget(guarded, 'empty.test', 80, async () => [])), 'dns');
  const { lookup, calls } = rebinding([PUBLIC]);
  assert.equal(await refusal(resolveTarget(guarded, 'host.invalid', 80, lookup)), 'dns');
  assert.deepEqual(calls, []);
});
