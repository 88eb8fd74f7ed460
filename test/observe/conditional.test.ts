/**
 * Conditional re-visits against the simulated Web (half its PLDs send validators, one answers 304
 * whatever changed, one changes its ETag on every response): the same two weeks crawled with and
 * without conditional requests publish the same statements, hashes and schedule, while the
 * conditional run downloads less and records what each server's validators did.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WEEK } from '../../pipeline/schedule/index.ts';
import { type SimWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { openDuckDb, verifySnapshot } from '../../pipeline/snapshot/index.ts';
import { archivedResponses } from '../archive/warc-reader.ts';
import { rdfDocuments, simWeekly } from './sim-weekly.ts';

const W0 = Date.UTC(2026, 0, 5);
const WEEK2 = '2026-01-12';
let sim: SimWeb;
const roots = { conditional: '', unconditional: '' };

async function twoWeeks(root: string, conditional: boolean): Promise<void> {
  const kernel = rdfDocuments(sim, W0);
  for (const at of [W0, W0 + WEEK]) {
    const outcome = await simWeekly(sim, root, at, kernel, { adaptiveRounds: 1, config: { conditional } });
    assert.equal(outcome.status, 'published');
  }
}

async function rows(sql: string): Promise<unknown[][]> {
  const session = await openDuckDb();
  try {
    return (await session.connection.runAndReadAll(sql)).getRows();
  } finally {
    session.close();
  }
}

const file = (run: keyof typeof roots, name: string) => `'${join(roots[run], WEEK2, name)}'`;

before(async () => {
  sim = await startSimWeb({ seed: 21, docs: 600, plds: 30, latencyScale: 0, faults: 0, now: W0 });
  for (const run of ['conditional', 'unconditional'] as const) {
    roots[run] = mkdtempSync(join(tmpdir(), `conditional-${run}-`));
    await twoWeeks(roots[run], run === 'conditional');
  }
});

after(() => sim.close());

test('with and without conditional requests the second week publishes the same statements', async () => {
  const quads = (run: keyof typeof roots) =>
    `SELECT graph, subject, predicate, object, object_kind, datatype, lang FROM read_parquet(${file(run, 'quads.parquet')})`;
  const [[total]] = await rows(`SELECT count(*) FROM (${quads('unconditional')})`);
  assert.ok(Number(total) > 1000);
  for (const [a, b] of [
    ['conditional', 'unconditional'],
    ['unconditional', 'conditional'],
  ] as const) {
    assert.deepEqual(await rows(`${quads(a)} EXCEPT ${quads(b)} LIMIT 3`), [], `quads only in the ${a} run`);
  }
  const documents = (run: keyof typeof roots) =>
    `SELECT url, final_url, format, statements, content_sha256, graph_hash FROM read_parquet(${file(run, 'documents.parquet')})`;
  assert.deepEqual(
    await rows(`${documents('conditional')} EXCEPT ${documents('unconditional')} LIMIT 3`),
    [],
  );
  assert.deepEqual(
    await rows(`${documents('unconditional')} EXCEPT ${documents('conditional')} LIMIT 3`),
    [],
  );
  const changes = (run: keyof typeof roots) =>
    `SELECT url, changed, added, removed FROM read_parquet(${file(run, 'changes.parquet')})`;
  assert.deepEqual(await rows(`${changes('conditional')} EXCEPT ${changes('unconditional')} LIMIT 3`), []);
  const schedule = (run: keyof typeof roots) =>
    `SELECT url, level, next_due FROM read_parquet(${file(run, 'schedule.parquet')})`;
  assert.deepEqual(await rows(`${schedule('conditional')} EXCEPT ${schedule('unconditional')} LIMIT 3`), []);
  await verifySnapshot(join(roots.conditional, WEEK2));
});

test('the conditional run records what the validators did, server by server', async () => {
  const byValidation = new Map(
    (
      await rows(`SELECT coalesce(validation, 'none'), count(*) FROM read_parquet(${file('conditional', 'documents.parquet')})
      WHERE downloaded_by = url GROUP BY 1`)
    ).map(([v, n]) => [v as string, Number(n)]),
  );
  const counts = JSON.stringify([...byValidation]);
  assert.ok((byValidation.get('not_modified') ?? 0) > 50, counts);
  assert.ok((byValidation.get('modified') ?? 0) > 0, counts);
  const carried =
    await rows(`SELECT DISTINCT status, carried_from FROM read_parquet(${file('conditional', 'documents.parquet')})
    WHERE validation = 'not_modified'`);
  assert.deepEqual(carried, [[304, '2026-01-05']]);
  const { stale304Pld, fickleEtagPld } = sim.summary();
  assert.ok(stale304Pld && fickleEtagPld);
  const fickle =
    await rows(`SELECT DISTINCT validation FROM read_parquet(${file('conditional', 'documents.parquet')})
    WHERE pld = '${fickleEtagPld}' AND validation IS NOT NULL`);
  assert.ok(
    fickle.some(([v]) => v === 'unmatched'),
    JSON.stringify(fickle),
  );
  assert.ok(!fickle.some(([v]) => v === 'not_modified'), JSON.stringify(fickle));
  // the server answering 304 to everything: its first changed document shows it, and the rest of
  // the PLD is then asked without validators
  const stale =
    await rows(`SELECT d.validation, c.changed FROM read_parquet(${file('conditional', 'documents.parquet')}) d
    JOIN read_parquet(${file('unconditional', 'changes.parquet')}) c USING (url)
    WHERE d.pld = '${stale304Pld}' AND d.downloaded_by = d.url AND c.changed IS NOT NULL`);
  if (stale.some(([, changed]) => changed))
    assert.ok(
      stale.some(([v]) => v === 'stale_304'),
      JSON.stringify(stale),
    );
});

test('the conditional run receives fewer bytes for the same snapshot', () => {
  const [conditional, unconditional] = [roots.conditional, roots.unconditional].map(
    (root) => archivedResponses(join(root, WEEK2)).bytes,
  );
  console.log(`response bytes, week 2: ${conditional} conditional, ${unconditional} unconditional`);
  assert.ok(conditional > 0 && conditional < unconditional, `${conditional} vs ${unconditional}`);
});
