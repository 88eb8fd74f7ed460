/**
 * The truth audit end to end (docs/audit.md): crawl a series of the simulated Web, build the portal,
 * work out the independent account from the ground truth and the server's request log, and hold
 * every figure of portal.json and a few rendered numbers against it.
 */
import { join } from 'node:path';
import { type BuiltPortal, buildPortal } from '../../pipeline/portal/index.ts';
import {
  type AuditMode,
  type AuditSeries,
  type AuditSize,
  crawlAuditSeries,
  ONE_PROCESS,
} from './audit-series.ts';
import { type Truth, truthFigures } from './independent-figures.ts';
import { KNOWN_WRONG } from './known-wrong.ts';
import { accountForSeries, type IndependentAccount, pldOf } from './observations.ts';
import { partialStatementsReader } from './partial-statements.ts';
import { type AuditReport, type AuditRow, auditPortal } from './portal-audit.ts';
import { auditRenderedPages } from './rendered-pages.ts';

export interface TruthAudit {
  readonly series: AuditSeries;
  readonly built: BuiltPortal;
  readonly account: IndependentAccount;
  readonly truth: Truth;
  readonly report: AuditReport;
  /** Rendered numbers of the built site. */
  readonly pages: readonly AuditRow[];
  /** Seconds spent crawling, building the portal, and auditing. */
  readonly seconds: { readonly crawl: number; readonly build: number; readonly audit: number };
}

const since = (t: number) => (performance.now() - t) / 1000;

/**
 * Runs the audit in `work` (an empty folder), the series crawled in `mode`. The simulated Web is
 * closed before it returns.
 */
export async function runTruthAudit(
  work: string,
  size: AuditSize,
  mode: AuditMode = ONE_PROCESS,
): Promise<TruthAudit> {
  const root = join(work, 'snapshots');
  let t = performance.now();
  const series = await crawlAuditSeries(root, size, mode);
  try {
    const crawl = since(t);
    t = performance.now();
    const built = await buildPortal({ root, out: join(work, 'site'), dataDir: join(work, 'portal-data') });
    const build = since(t);
    t = performance.now();
    const partial = await partialStatementsReader(root);
    const account = await accountForSeries(series, series.sim.web, partial.read).finally(partial.close);
    const truth = truthFigures(account, series.kernel);
    const report = await auditPortal({ truth, root, data: built.data }, KNOWN_WRONG);
    const pages = await auditRenderedPages(built.out, truth);
    return { series, built, account, truth, report, pages, seconds: { crawl, build, audit: since(t) } };
  } finally {
    await series.sim.close();
  }
}

const cell = (v: unknown, width: number) => {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
  return s.length > width ? `${s.slice(0, width - 1)}…` : s;
};

/** The comparison table: figure, portal value, independent value, verdict; then the listed figures. */
export function formatAudit(a: TruthAudit, o: { readonly all: boolean; readonly width: number }): string {
  const lines: string[] = [];
  const rows = [...a.report.rows, ...a.pages];
  const shown = o.all ? rows : rows.filter((r) => r.verdict !== 'agrees');
  lines.push(['verdict', 'figure', 'portal', 'independent'].join('\t'));
  for (const r of shown)
    lines.push([r.verdict, r.figure, cell(r.portal, o.width), cell(r.independent, o.width)].join('\t'));
  lines.push('');
  lines.push('listed without an independent check (leaves, figure, reason):');
  for (const l of a.report.listed) lines.push(`  ${l.leaves}\t${l.figure}\t${l.reason}`);
  for (const u of a.report.unaudited) lines.push(`UNAUDITED\t${u}\t(no entry in test/audit/portal-audit.ts)`);
  if (a.account.partial.length > 0)
    lines.push(
      `  ${a.account.partial.reduce((n, p) => n + p.statements, 0)}\tstatements before a syntax error (${a.account.partial.length} observations)\tthe crawl's, which depend on the parser; checked to be statements of the served graph`,
    );
  for (const x of a.account.anomalies) lines.push(`ANOMALY\t${x.crawl}\t${x.what}`);
  if (a.series.mode.kind === 'coordinator') {
    const limits = distributedLimits(a);
    for (const r of limits.crossPldRevisits)
      lines.push(
        `LIMIT\t${r}\ta re-visit whose previous final URL lies in another PLD (asked without validators)`,
      );
    for (const r of limits.crossPldChainsOverLimit)
      lines.push(`LIMIT\t${r}\ta chain through several PLDs over the redirect limit (followed to its end)`);
  }
  for (const k of a.report.staleKnownWrong)
    lines.push(`FIXED?\t${k}\tagrees everywhere: remove it from KNOWN_WRONG`);
  const count = (v: string) => rows.filter((r) => r.verdict === v).length;
  lines.push('');
  lines.push(
    `${rows.length} comparisons (${a.report.checkedLeaves} leaves of portal.json, ${a.pages.length} rendered numbers): ` +
      `${count('agrees')} agree, ${count('DIFFERS')} differ, ${count('known wrong')} known wrong; ` +
      `${a.report.listedLeaves} leaves listed unaudited; ${a.report.unaudited.length} unaudited; ${a.account.anomalies.length} anomalies`,
  );
  const { mode } = a.series;
  const recorded = (i: number) => a.series.crawls.reduce((n, c) => n + (c.recorded?.[i] ?? 0), 0);
  const how =
    mode.kind === 'coordinator'
      ? `through a coordinator, URLs recorded per worker ${Array.from({ length: mode.workers }, (_, i) => recorded(i)).join(' / ')}`
      : 'in one process';
  lines.push(
    `crawl ${a.seconds.crawl.toFixed(1)} s ${how} (${a.series.crawls.length} snapshots, kernel ${a.series.kernel.length}), ` +
      `portal ${a.seconds.build.toFixed(1)} s, audit ${a.seconds.audit.toFixed(1)} s`,
  );
  return lines.join('\n');
}

/** True when the audit found nothing wrong beyond the known-wrong figures. */
export function auditPassed(a: TruthAudit): boolean {
  return (
    [...a.report.rows, ...a.pages].every((r) => r.verdict !== 'DIFFERS') &&
    a.report.unaudited.length === 0 &&
    a.report.staleKnownWrong.length === 0 &&
    a.account.anomalies.length === 0
  );
}

/** The comparison table's lines that are not right: differences, unaudited leaves, anomalies, stale known-wrong entries. */
export function differingLines(a: TruthAudit): string[] {
  return formatAudit(a, { all: false, width: 200 })
    .split('\n')
    .filter((l) => /^(DIFFERS|UNAUDITED|ANOMALY|FIXED\?)/.test(l));
}

/**
 * What the series holds, so that the audit cannot pass by having nothing to check: weekly
 * snapshots, ticks, 304s, availability changes, changes, redirects, robots.txt refusals (a rule and
 * robots.txt failing), 5xx, `comeback` 200 -> 404 -> 200, re-visit levels above 0.
 */
export function seriesFacts(a: TruthAudit) {
  const rows = a.account.crawls.flatMap((c) => c.rows);
  const count = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).length;
  const comeback = rows.filter((r) => r.url === 'http://data.status-lab.org/comeback').map((r) => r.status);
  const weekly = a.series.crawls.filter((c) => c.kind === 'weekly').length;
  return {
    weekly,
    ticks: a.series.crawls.length - weekly > 0,
    notModified: count((r) => r.notModified) > 0,
    availabilityChanged: count((r) => r.availabilityChanged === true) > 0,
    changed: count((r) => r.changed === true) > 0,
    redirected: count((r) => r.hops.length > 1) > 0,
    robots: count((r) => r.error === 'robots') > 0 && count((r) => r.error === 'robots_unavailable') > 0,
    serverErrors: count((r) => r.error === 'http_5xx') > 0,
    comebackGoneAndBack: comeback.slice(0, 3).join(' ') === '200 404 200',
    levelsAboveZero: [...a.truth.levels.values()].some((m) => [...m.values()].some((r) => r.low > 0)),
  };
}

/** `seriesFacts` of a series that holds everything, of `weeks` weeks. */
export const expectedFacts = (weeks: number): ReturnType<typeof seriesFacts> => ({
  weekly: weeks,
  ticks: true,
  notModified: true,
  availabilityChanged: true,
  changed: true,
  redirected: true,
  robots: true,
  serverErrors: true,
  comebackGoneAndBack: true,
  levelsAboveZero: true,
});

/**
 * Rows of the series that meet a documented difference of the distributed mode (docs/distributed.md,
 * Limits), which the account does not model: a re-visit whose previous final URL, asked with
 * validators, lies in another PLD than the URL (through the coordinator it is asked without them),
 * and a redirect chain through several PLDs cut at the redirect limit (through the coordinator each
 * PLD counts its hops afresh). The audited series holds neither (docs/audit.md).
 */
export function distributedLimits(a: TruthAudit) {
  const rows = a.account.crawls.flatMap((c) => c.rows.map((r) => ({ ...r, name: c.crawl.name })));
  const crosses = (hops: TruthAudit['account']['crawls'][number]['rows'][number]['hops']) =>
    hops.some((h) => pldOf(h.from) !== pldOf(h.to));
  return {
    crossPldRevisits: rows
      .filter((r) => r.previous?.validators && pldOf(r.previous.finalUrl) !== r.pld)
      .map((r) => `${r.name} ${r.url}`),
    crossPldChainsOverLimit: rows
      .filter((r) => r.error === 'redirect_limit' && crosses(r.hops))
      .map((r) => `${r.name} ${r.url}`),
  };
}
