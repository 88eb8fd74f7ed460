/**
 * Frontier memory and speed at the scale of a weekly snapshot: 1,000,000 distinct URLs over 650
 * PLDs (sizes skewed like the Web of Data's: a few PLDs hold most URLs), a third of them discovered
 * again (in-links), joined into one round and drained PLD by PLD as the crawl takes them. Reports
 * heap and RSS growth per URL while the frontier holds them all, peak RSS, and throughput.
 * The URL strings are made on the fly, as the parse worker hands them over, so only the frontier keeps them.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Frontier } from '../../pipeline/crawl/frontier.ts';

const URLS = Number(process.env.BENCH_FRONTIER_URLS ?? 1_000_000);
const PLDS = 650;
/** Every third URL is found again from another document; every ninth a third time. */
const REDISCOVER = [3, 9];
const BUDGET_MIB = 512;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** PLD of the i-th URL: Zipf-like, PLD p gets a share proportional to 1 / (p + 1). */
const pldOfIndex = (() => {
  const weights = Array.from({ length: PLDS }, (_, p) => 1 / (p + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative = new Float64Array(PLDS);
  let sum = 0;
  for (let p = 0; p < PLDS; p++) cumulative[p] = sum += weights[p] / total;
  return (i: number): number => {
    const x = ((i * 2654435761) % 2 ** 32) / 2 ** 32;
    let p = 0;
    while (p < PLDS - 1 && cumulative[p] < x) p++;
    return p;
  };
})();

const TLDS = ['org', 'com', 'net', 'de', 'fr', 'co.uk', 'eu', 'info', 'nl', 'it'];
const SHAPES = [
  (host: string, i: number) => `http://${host}/resource/Entity_${i.toString(36)}`,
  (host: string, i: number) => `http://data.${host}/id/${i % 997}/${i}`,
  (host: string, i: number) => `https://www.${host}/ontology/${i.toString(16)}#this`,
  (host: string, i: number) => `http://${host}/page/item.php?id=${i}&format=rdf`,
];

/**
 * The i-th distinct URL, as a fresh flat string each time, as the crawl gets it from the parse
 * worker (a structured clone). A template literal would give a tree of concatenations that costs
 * more than the text (185 against 78 bytes for these URLs, measured) and measure V8, not the frontier.
 */
function urlAt(i: number): string {
  const p = pldOfIndex(i);
  const host = `dataset-${p}.example-${p % 37}.${TLDS[p % TLDS.length]}`;
  return JSON.parse(JSON.stringify(SHAPES[i % SHAPES.length](host, i)));
}

function memory(): { heap: number; rss: number } {
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

export default async function (): Promise<void> {
  const base = memory();
  const frontier = new Frontier();
  let t0 = performance.now();
  let discovers = 0;
  for (let i = 0; i < URLS; i++) {
    frontier.discover(urlAt(i), i % 3);
    discovers++;
    // in-links arrive later in the crawl, for URLs found a while ago
    const earlier = i - 50_000;
    for (const every of REDISCOVER) {
      if (earlier >= 0 && earlier % every === 0) {
        frontier.discover(urlAt(earlier), 2);
        discovers++;
      }
    }
  }
  const discoverSeconds = (performance.now() - t0) / 1000;
  const candidates = memory();

  t0 = performance.now();
  const joined = frontier.startRound(1, 3, Number.POSITIVE_INFINITY).length;
  const roundSeconds = (performance.now() - t0) / 1000;
  const queued = memory();

  // the crawl's fill(): every pass takes one URL from each active PLD, best first
  t0 = performance.now();
  let taken = 0;
  for (let plds = frontier.activePlds(); plds.length > 0; plds = frontier.activePlds()) {
    for (const pld of plds) if (frontier.take(pld)) taken++;
  }
  const takeSeconds = (performance.now() - t0) / 1000;
  const drained = memory();

  const perUrl = (m: { heap: number; rss: number }) =>
    `${((m.heap - base.heap) / URLS).toFixed(0)} B heap, ${((m.rss - base.rss) / URLS).toFixed(0)} B RSS`;
  const growth = Math.max(candidates.rss, queued.rss) - base.rss;
  process.stdout.write('| phase | figures |\n| --- | --- |\n');
  process.stdout.write(
    `| discover | ${URLS.toLocaleString('en')} URLs on ${PLDS} PLDs, ${discovers.toLocaleString('en')} discover calls: ${(discovers / discoverSeconds / 1000).toFixed(0)}k calls/s |\n`,
  );
  process.stdout.write(`| candidates held | per URL ${perUrl(candidates)} |\n`);
  process.stdout.write(
    `| startRound | ${joined.toLocaleString('en')} joined in ${roundSeconds.toFixed(1)} s; per URL ${perUrl(queued)} |\n`,
  );
  process.stdout.write(
    `| drain | ${taken.toLocaleString('en')} taken: ${(taken / takeSeconds / 1000).toFixed(0)}k takes/s; per URL afterwards ${perUrl(drained)} |\n`,
  );
  process.stdout.write(
    `\nfrontier RSS growth ${mib(growth)} MiB for ${URLS.toLocaleString('en')} URLs = ${((growth / 2 ** 20 / BUDGET_MIB) * 100).toFixed(0)}% of ${BUDGET_MIB} MiB; peak RSS ${mib(process.resourceUsage().maxRSS * 1024)} MiB (seen ${frontier.seen.toLocaleString('en')})\n`,
  );
}
