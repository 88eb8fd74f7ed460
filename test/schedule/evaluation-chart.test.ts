import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderVegaLite } from '../../pipeline/core/index.ts';
import { monthlySpec, tradeoffSpec } from '../../pipeline/schedule/evaluation/chart.ts';

/** The eleven strategies an evaluation compares (docs/evaluation/all). */
const STRATEGIES = [
  'fix',
  'dyn',
  'window',
  'window-half',
  'state-1',
  'state-2',
  'week',
  'gold',
  'dyldo',
  'cho-regular',
  'cho-irregular',
];

test('the monthly chart draws each of eleven strategies in its own colour and dash', async () => {
  const rows = STRATEGIES.flatMap((strategy, i) =>
    [0, 1, 2].map((month) => ({ strategy, month, recall: 0.4 + i / 100, precision: 0.3 + i / 100 })),
  );
  const svg = await renderVegaLite(monthlySpec(rows));
  const lines = [
    ...svg.matchAll(
      /<path aria-label="[^"]*strategy: ([^"]+)"[^>]*line mark[^>]* stroke="([^"]+)"[^>]* stroke-dasharray="([^"]+)"/g,
    ),
  ];
  const looks = new Map<string, Set<string>>();
  for (const [, strategy, colour, dash] of lines)
    looks.set(strategy, (looks.get(strategy) ?? new Set()).add(`${colour} ${dash}`));
  assert.equal(looks.size, STRATEGIES.length, 'a line per strategy');
  // both panels draw a strategy alike, and no two strategies alike
  for (const [strategy, seen] of looks) assert.equal(seen.size, 1, strategy);
  const styles = [...looks.values()].map((s) => [...s][0]);
  assert.equal(new Set(styles).size, STRATEGIES.length, styles.join('; '));
  // the colours alone hold for eleven (the default scheme has ten and repeats the first)
  assert.equal(new Set(styles.map((s) => s.split(' ')[0])).size, STRATEGIES.length);
});

test('the trade-off chart names each strategy once, in its legend, and the budget sweep too', async () => {
  // strategies that score alike: names written beside their points fell on one another
  const points = STRATEGIES.map((strategy, i) => ({ strategy, downloads: 100_000 + 1000 * i, recall: 0.45 }));
  const sweep = [20_000, 100_000, 1_000_000].map((downloads, i) => ({ downloads, recall: 0.2 + 0.2 * i }));
  const svg = await renderVegaLite(tradeoffSpec(points, sweep, 'cho-irregular'));
  const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  for (const strategy of STRATEGIES)
    assert.equal(texts.filter((t) => t === strategy).length, 1, `${strategy}: once, in the legend`);
  assert.ok(texts.includes('cho-irregular at other budgets'), 'the grey line has a legend entry');
  assert.ok(texts.includes('budget sweep'));
  // the portal's charts' 12 px (Vega's default labels are 10): the portal shows the file as drawn
  const sizes = [...svg.matchAll(/font-size="([\d.]+)px"/g)].map((m) => Number(m[1]));
  assert.ok(sizes.length > 20 && Math.min(...sizes) >= 12, String(sizes));
});
