import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { simGet } from './sim-client.ts';

let sim: SimWeb;
before(async () => {
  sim = await startSimWeb({ seed: 3, docs: 600, plds: 40, latencyScale: 0 });
});
after(() => sim.close());

async function outages(body?: unknown): Promise<{ status: number; value: { unreachable?: string[] } }> {
  const res = await request(`${sim.origin}/__sim/outages`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { host: 'anything.example.org', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, value: (await res.body.json()) as { unreachable?: string[] } };
}

test('an unreachable PLD: every host of it is logged and reset unanswered, other PLDs answer, and it comes back', async () => {
  const [down, up] = ['dbpedia.org', 'www.wikidata.org'].map(
    (host) => sim.coreSeeds.find((u) => new URL(u).hostname.endsWith(host))!,
  );
  assert.ok(down && up, 'the core seeds hold both datasets');
  assert.deepEqual((await outages({ unreachable: ['dbpedia.org'] })).value, { unreachable: ['dbpedia.org'] });
  assert.deepEqual((await outages()).value, { unreachable: ['dbpedia.org'] });
  sim.clearRequestLog();
  await assert.rejects(simGet(sim, down), /socket|closed|reset/i);
  // a subdomain (a language edition) of the PLD is down too
  await assert.rejects(simGet(sim, 'http://de.dbpedia.org/resource/X'), /socket|closed|reset/i);
  assert.equal((await simGet(sim, up)).status < 500, true);
  const log = sim.requestLog();
  assert.deepEqual(
    log.map((e) => [e.pld, e.status]),
    [
      ['dbpedia.org', null],
      ['dbpedia.org', null],
      ['wikidata.org', log[2].status],
    ],
  );
  assert.deepEqual((await outages({ unreachable: [] })).value, { unreachable: [] });
  assert.ok((await simGet(sim, down)).status < 500);
});

test('a malformed outage request is refused with what was expected', async () => {
  for (const body of [{}, { unreachable: 'dbpedia.org' }, { unreachable: [''] }, { unreachable: [1] }]) {
    const { status, value } = await outages(body);
    assert.equal(status, 400);
    assert.match(String((value as { error?: string }).error), /expected a JSON body \{"unreachable"/);
  }
});
