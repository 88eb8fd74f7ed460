/**
 * The catalogue of the portal's figures: every part of portal.json, by its place in it, either
 * checked against the independent figures (how its value is worked out, how it is compared) or
 * listed with the reason it has no independent check (docs/audit.md).
 */

import type { AuditInput } from './agreements.ts';
import {
  type Agreement,
  domainAgree,
  frequencyAgree,
  levelsAgree,
  nearTime,
  rankedTable,
  timeTable,
} from './agreements.ts';
import {
  CHART_PARTS,
  CHARTS,
  domain,
  iso,
  reproduction,
  type Scope,
  snap,
  TIME_CHARTS,
  table,
  WHAT_CHANGES,
  weekly,
} from './figure-values.ts';
import { dynamicDocuments, dynamicPlds, fileFacts, round2, vocabularies } from './independent-figures.ts';

export interface Checked {
  readonly figure: string;
  /** The independent value of the node at `scope` (the portal's node given for its shape only). */
  readonly truth: (t: AuditInput, scope: Scope) => unknown | Promise<unknown>;
  readonly agree?: Agreement;
  /** Parts of the node (patterns relative to it) left out of the comparison, with the reason. */
  readonly unaudited?: Readonly<Record<string, string>>;
}

export interface Listed {
  readonly figure: string;
  readonly reason: string;
  /** Applies only where the node is a leaf (a null in place of an object). */
  readonly leafOnly?: true;
}

export type Entry = Checked | Listed;

const stat = (path: string): Checked => ({
  figure: `snapshots[].stats.${path}`,
  truth: (t, s) =>
    path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], snap(t, s).stats),
});
const digest = (field: string, agree?: Agreement): Checked => ({
  figure: `snapshots[].digest.${field}`,
  truth: (t, s) => snap(t, s).digest[field],
  agree,
});

/** Every part of portal.json: checked against the independent figures, or listed with the reason it is not. */
export const FIGURES: readonly Entry[] = [
  { figure: 'portalVersion', reason: 'the version of portal.json’s shape' },
  { figure: 'baseUrl', reason: 'a link (test/portal/portal.test.ts resolves every link of the built site)' },
  { figure: 'dataset', reason: 'words and links describing the dataset series (VoID/DCAT)' },
  { figure: 'snapshots[].name', truth: (t, s) => snap(t, s).crawl.name },
  { figure: 'snapshots[].kind', truth: (t, s) => snap(t, s).crawl.kind },
  { figure: 'snapshots[].startedAt', truth: (t, s) => iso(snap(t, s).crawl.at), agree: nearTime },
  {
    figure: 'snapshots[].endedAt',
    reason: 'when the crawl ended on its own clock: the server sees requests, not the end of publishing',
  },
  { figure: 'snapshots[].publishedAt', reason: 'when the folder was published: no server-side counterpart' },
  { figure: 'snapshots[].previous', truth: (t, s) => snap(t, s).previous },
  { figure: 'snapshots[].counts', truth: (t, s) => snap(t, s).counts },
  ...[
    'documents',
    'bytes',
    'statements',
    'distinctSubjects',
    'distinctPredicates',
    'distinctClasses',
    'literals',
    'distinctBlankNodes',
    'redirectHops',
    'redirectedDocuments',
    'byStatus',
    'byError',
    'byFormat',
    'bySegment',
    'plds',
    'topClasses',
    'topPredicates',
    'changes.changed',
    'changes.unchanged',
    'changes.new',
    'changes.notComparable',
    'changes.availabilityChanged',
    'changes.triplesAdded',
    'changes.triplesRemoved',
  ].map(stat),
  { figure: 'snapshots[].newPlds', truth: (t, s) => snap(t, s).newPlds },
  digest('available'),
  digest('availabilityChanged'),
  digest('bytes'),
  digest('levels', levelsAgree),
  digest('changeDegree'),
  digest('redirectStatuses'),
  digest('redirectChains'),
  {
    figure: 'snapshots[].digest.errorExamples',
    truth: (t, s) => snap(t, s).digest.errorExamples,
    unaudited: { '[].message': 'the crawler’s own words for the error (a server’s or a parser’s message)' },
  },
  digest('plds'),
  digest('classes'),
  digest('delta'),
  {
    figure: 'snapshots[].files',
    truth: async (t, s) =>
      Promise.all(
        (t.data.snapshots.find((x) => x.name === s.snapshots)?.files ?? []).map(async (f) => ({
          name: f.name,
          ...(await fileFacts(t.root, s.snapshots, f.name)),
          ...(f.name in snap(t, s).tableRows ? { rows: snap(t, s).tableRows[f.name] } : {}),
        })),
      ),
    unaudited: {
      '[].url': 'a link (test/portal/portal.test.ts downloads every file and compares size and SHA-256)',
    },
  },
  {
    figure: 'snapshots[].manifestSha256',
    truth: async (t, s) => (await fileFacts(t.root, s.snapshots, 'manifest.json')).sha256,
  },
  {
    figure: 'expansions',
    reason:
      'the audited series runs no expansion (its kernel is taken from the truth); an expansion crawl’s rounds are a when, not a hop distance (docs/crawling.md), which the server cannot see',
  },
  { figure: 'latestWeekly', truth: (t) => t.truth.latestWeekly },
  ...Object.keys(CHARTS).flatMap((id): Entry[] => [
    {
      figure: `charts.${id}.table`,
      truth: (t) => CHARTS[id](t),
      agree: TIME_CHARTS.has(id) ? timeTable : id === 'change-frequency' ? frequencyAgree : undefined,
    },
    ...Object.entries(CHART_PARTS).map(([part, reason]) => ({ figure: `charts.${id}.${part}`, reason })),
  ]),
  {
    figure: 'reproductions[].table',
    truth: (t, s) => reproduction(t, s.reproductions),
  },
  { figure: 'reproductions[].chart.table', truth: (t, s) => reproduction(t, s.reproductions) },
  { figure: 'reproductions[].chart', reason: 'a table has no chart (null)', leafOnly: true },
  ...Object.entries(CHART_PARTS).map(([part, reason]) => ({
    figure: `reproductions[].chart.${part}`,
    reason,
  })),
  ...['id', 'paper', 'title', 'summary', 'differences', 'query'].map((part) => ({
    figure: `reproductions[].${part}`,
    reason: 'words: what the figure is, how it differs from the paper’s and the query that computes it',
  })),
  {
    figure: 'strategies',
    reason:
      'the outputs of `observatory evaluate` / `estimate` the build is given, shown as they are: no crawl figure',
  },
  {
    figure: 'dynamics.mostDynamicPlds',
    truth: (t) =>
      table(
        ['PLD', 'documents', 'comparisons', 'changes', 'change rate', 'changes a week (mean)'],
        dynamicPlds(t.truth, 1),
      ),
    agree: rankedTable({ rate: 5, direction: 1, limit: 15, rates: { 5: round2 } }),
  },
  {
    figure: 'dynamics.leastDynamicPlds',
    truth: (t) =>
      table(
        ['PLD', 'documents', 'comparisons', 'changes', 'change rate', 'changes a week (mean)'],
        dynamicPlds(t.truth, -1),
      ),
    agree: rankedTable({ rate: 5, direction: -1, limit: 15, rates: { 5: round2 } }),
  },
  {
    figure: 'dynamics.mostDynamicDocuments',
    truth: (t) =>
      table(
        ['document', 'comparisons', 'changes', 'observed days', 'changes a week', '95% interval'],
        dynamicDocuments(t.truth),
      ),
    agree: rankedTable({ rate: 4, direction: 1, limit: 15, rates: { 3: Math.round, 4: round2 } }),
  },
  {
    figure: 'dynamics.vocabularies',
    truth: (t) => table(['class', 'comparisons', 'changes', 'change rate'], vocabularies(t.truth)),
  },
  ...Object.entries(WHAT_CHANGES).map(([part, truth]): Checked => ({ figure: `whatChanges.${part}`, truth })),
  {
    figure: 'domains',
    truth: (t) =>
      [...new Set(weekly(t).flatMap((s) => [...s.plds.keys()]))]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((pld) => domain(t, pld)),
    agree: (p, t) =>
      Array.isArray(p) &&
      Array.isArray(t) &&
      p.length === t.length &&
      p.every((x, i) => domainAgree(x, t[i])),
    unaudited: {
      '[].slug': 'the path segment of the PLD’s page',
      '[].chart.id': CHART_PARTS.id,
      '[].chart.title': CHART_PARTS.title,
      '[].chart.summary': CHART_PARTS.summary,
      '[].chart.svg': CHART_PARTS.svg,
      '[].chart.narrowSvg': CHART_PARTS.narrowSvg,
    },
  },
  {
    figure: 'errata',
    reason: 'figures once published wrong and the schema versions that state them: text (docs/errata.md)',
  },
  { figure: 'dictionary', reason: 'the data dictionary: words (docs/data-dictionary.md)' },
  { figure: 'definitions', reason: 'the figures’ definitions: words (docs/data-dictionary.md)' },
  { figure: 'queries', reason: 'example queries: words (docs/queries)' },
  {
    figure: 'crawler',
    reason: 'the crawler’s configuration as the About page states it: settings, not measurements',
  },
  { figure: 'datasetFiles', reason: 'file names' },
  { figure: 'catalogueUrl', reason: 'a link' },
  { figure: 'latestUrl', reason: 'a link' },
  { figure: 'latestUrlList', reason: 'a link' },
  { figure: 'tableUrlLists', reason: 'links' },
];
