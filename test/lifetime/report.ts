import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { renderVegaLite } from '../../pipeline/core/index.ts';
import { SLOT_MS, SLOTS_PER_WEEK } from '../../pipeline/schedule/index.ts';
import { listSnapshots } from '../../pipeline/snapshot/index.ts';
import type { CheckResult } from './checks.ts';
import type { Version } from './cli-process.ts';
import { FILE_KIND_LEGEND, FILE_KINDS, type FileKind } from './folder-bytes.ts';
import { type SlotOutcome, slotOutcomes } from './slot-outcomes.ts';
import type { RunRecord, YearResult } from './year.ts';
import { describeEvent, type PlannedEvent, type YearEvent } from './year-plan.ts';

export interface ReportInput {
  readonly out: string;
  readonly repo: string;
  /** Also write docs/lifetime.md's generated part and docs/lifetime/*.svg. */
  readonly publish: boolean;
  readonly command: string;
  readonly seed: number;
  readonly docs: number;
  readonly plds: number;
  readonly wallMs: number;
  readonly versions: { readonly old: Version; readonly current: Version };
  readonly plan: readonly PlannedEvent[];
  readonly leftOut: readonly YearEvent[];
  readonly year: YearResult;
  /** Real changes (graph changed) of the simulated Web per week, from its ground truth. */
  readonly webChanges: readonly number[];
  readonly checks: readonly CheckResult[];
  readonly kernel: number;
}

/** One week's figures, as the table and the charts show them. */
interface Row {
  readonly week: number;
  readonly version: string;
  readonly weekly: string;
  readonly crawlS: number | null;
  readonly publishS: number | null;
  /**
   * The weekly publish's change detection (s) and its manifest's previousSnapshots: the earlier
   * snapshots it read (up to wave2), the snapshots it compared with (since the last observations).
   */
  readonly changeDetectionS: number | null;
  readonly previousRead: number | null;
  readonly ticks: number;
  /** Kernel documents the week's ticks re-visited (their "N due documents"). */
  readonly revisits: number;
  readonly ticksS: number;
  /** Mean wall time of the week's ticks that published, and of those that had nothing to do (s). */
  readonly tickPublishedS: number | null;
  readonly tickIdleS: number | null;
  readonly peak: Readonly<
    Record<'snapshot' | 'tick' | 'portal' | 'astro' | 'status' | 'simweb', number | null>
  >;
  readonly added: Record<FileKind, number>;
  readonly addedTotal: number;
  readonly portalS: number | null;
  readonly fetchedBytes: number | null;
  readonly late: string[];
  readonly missed: string[];
  readonly onTime: number;
  readonly nothingDue: number;
  readonly statusExit: number | null;
  readonly webChanges: number;
  readonly requests: number;
  readonly events: string[];
}

const MIB = 2 ** 20;
const max = (values: readonly number[]) => (values.length ? Math.max(...values) : null);
const mean = (values: readonly number[]) =>
  values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
const s1 = (ms: number | null) => (ms === null ? null : ms / 1000);
const fmt = (v: number | null, digits = 1) => (v === null ? '–' : v.toFixed(digits));

function rows(input: ReportInput, outcomes: Map<unknown, SlotOutcome>): Row[] {
  const { year } = input;
  return year.weeks.map((w, i) => {
    const week = w.week - 1;
    const of = (command: string) => year.runs.filter((r) => r.week === week && r.command === command);
    const publishedWeekly = year.runs.find(
      (r) =>
        r.week === week &&
        r.command === 'snapshot' &&
        / published|^published/.test(r.said) &&
        r.publishMs !== null,
    );
    const weeklyRuns = of('snapshot');
    const weekly =
      publishedWeekly?.said.match(/published \S*\/([^/:\s]+)/)?.[1] ??
      weeklyRuns
        .map((r) => (r.signal ? `killed (${r.killed})` : (r.error ?? r.said.split('\n')[0])))
        .join(', ');
    const ticks = of('tick');
    const portal = of('portal');
    const builtPortal = portal.filter((r) => r.exitCode === 0).at(-1) ?? null;
    const before = i === 0 ? year.baselineBytes : year.weeks[i - 1].bytes;
    const added = Object.fromEntries(FILE_KINDS.map((k) => [k, w.bytes[k] - before[k]])) as Record<
      FileKind,
      number
    >;
    const weekSlots = year.slots.filter((s) => s.week === week);
    const late: string[] = [];
    const missed: string[] = [];
    let onTime = 0;
    let nothingDue = 0;
    for (const s of weekSlots) {
      const o = outcomes.get(s);
      if (!o) continue;
      if (o.kind === 'on-time') onTime++;
      else if (o.kind === 'nothing-due') nothingDue++;
      else if (o.kind === 'missed') missed.push(`${s.slot}: ${o.why}`);
      else late.push(`${s.slot} ${o.kind}: ${o.why}`);
    }
    const peakOf = (runs: readonly RunRecord[]) => max(runs.map((r) => r.peakMiB));
    return {
      week: w.week,
      version: w.version,
      weekly,
      crawlS: s1(publishedWeekly?.crawlMs ?? null),
      publishS: s1(publishedWeekly?.publishMs ?? null),
      changeDetectionS: s1(publishedWeekly?.changeDetectionMs ?? null),
      previousRead: previousRead(input, publishedWeekly),
      ticks: ticks.filter((r) => /published/.test(r.said)).length,
      revisits: ticks.reduce((sum, r) => sum + Number(/: (\d+) due documents/.exec(r.said)?.[1] ?? 0), 0),
      ticksS: ticks.reduce((sum, r) => sum + r.wallMs, 0) / 1000,
      tickPublishedS: mean(ticks.filter((r) => /published/.test(r.said)).map((r) => r.wallMs / 1000)),
      tickIdleS: mean(
        ticks.filter((r) => r.exitCode === 0 && !/published/.test(r.said)).map((r) => r.wallMs / 1000),
      ),
      peak: {
        snapshot: peakOf(weeklyRuns),
        tick: peakOf(ticks),
        portal: peakOf(portal),
        astro: max(portal.flatMap((r) => r.children.map((c) => c.peakMiB))),
        status: peakOf(of('status')),
        simweb: w.simwebPeakMiB,
      },
      added,
      addedTotal: FILE_KINDS.reduce((sum, k) => sum + added[k], 0),
      portalS: s1(builtPortal?.wallMs ?? null),
      fetchedBytes: w.portalFetched?.bytes ?? null,
      late,
      missed,
      onTime,
      nothingDue,
      statusExit: w.statusExit,
      webChanges: input.webChanges[week] ?? 0,
      requests: w.requests,
      events: weekSlots.flatMap((s) => s.events.map((e) => `${s.slot}: ${e}`)),
    };
  });
}

/** The week's late, early and missed slots grouped by why: "slots 1, 2, 3 missed: the weekly snapshot is due". */
function groupedReasons(r: Row): string {
  const groups = new Map<string, number[]>();
  const add = (slot: number, why: string) => groups.set(why, [...(groups.get(why) ?? []), slot]);
  for (const line of r.late) {
    const m = /^(\d+) (late|early): (.*)$/.exec(line);
    if (m) add(Number(m[1]), `${m[2]}: ${m[3]}`);
  }
  for (const line of r.missed) {
    const m = /^(\d+): (.*)$/.exec(line);
    if (m) add(Number(m[1]), `missed: ${m[2]}`);
  }
  return [...groups]
    .map(([why, slots]) => `${slots.length === 1 ? 'slot' : 'slots'} ${slots.join(', ')} ${why}`)
    .join('; ');
}

/** The median of a figure over weeks `from`..`to` (where it exists), or null. */
function median(
  list: readonly Row[],
  pick: (r: Row) => number | null,
  from: number,
  to: number,
): number | null {
  const values = list
    .filter((r) => r.week >= from && r.week <= to)
    .map(pick)
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);
  if (values.length === 0) return null;
  const mid = Math.floor(values.length / 2);
  return values.length % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/** The median of the last four weeks over that of weeks 2 to 5: single weeks on a shared machine move by tens of percent. */
function medianRatio(list: readonly Row[], pick: (r: Row) => number | null): string {
  const early = median(list, pick, 2, 5);
  const late = median(list, pick, list.length - 3, list.length);
  return early && late !== null ? (late / early).toFixed(2) : '–';
}

/** How many earlier snapshots the weekly snapshot's change detection read (its manifest), or null. */
function previousRead(input: ReportInput, run: RunRecord | undefined): number | null {
  const name = run?.said.match(/published \S*\/(\d{4}-\d\d-\d\d):/)?.[1];
  if (!name) return null;
  try {
    const manifest = JSON.parse(
      readFileSync(join(input.out, 'fs', 'snapshots', name, 'manifest.json'), 'utf8'),
    );
    return Array.isArray(manifest.previousSnapshots) ? manifest.previousSnapshots.length : null;
  } catch {
    return null;
  }
}

/** Week `b` over week `a` of a figure, where both exist. */
function ratio(list: readonly Row[], pick: (r: Row) => number | null, a = 2, b = list.length): string {
  const x = list.find((r) => r.week === a);
  const y = list.find((r) => r.week === b);
  const vx = x ? pick(x) : null;
  const vy = y ? pick(y) : null;
  return vx && vy !== null ? (vy / vx).toFixed(2) : '–';
}

/** A line chart of figures per week, one line per series. */
async function weekChart(
  title: string,
  yTitle: string,
  points: readonly { week: number; series: string; value: number | null }[],
  mark: 'line' | 'bar' = 'line',
): Promise<string> {
  const values = points.filter((p) => p.value !== null);
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 640,
    height: 260,
    config: { font: 'system-ui, sans-serif', axis: { labelFontSize: 12, titleFontSize: 12 } },
    data: { values },
    mark: mark === 'line' ? { type: 'line', point: true } : { type: 'bar' },
    encoding: {
      x: { field: 'week', type: mark === 'bar' ? 'ordinal' : 'quantitative', title: 'week' },
      y: {
        field: 'value',
        type: 'quantitative',
        title: yTitle,
        ...(mark === 'bar' ? { stack: 'zero' } : {}),
      },
      color: { field: 'series', type: 'nominal', title: null },
    },
  } as unknown as TopLevelSpec;
  return renderVegaLite(spec);
}

const escapeCell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** Writes lifetime.md and the charts into the run's folder (and, with publish, into docs/). */
export async function writeReport(input: ReportInput): Promise<void> {
  const { year } = input;
  const catalogue = await listSnapshots(join(input.out, 'fs', 'snapshots')).catch(() => []);
  const start = Date.parse(year.weeks[0]?.start ?? new Date().toISOString());
  const outcomes = slotOutcomes(year.slots, year.runs, catalogue, start, SLOT_MS, SLOTS_PER_WEEK);
  const list = rows(input, outcomes as Map<unknown, SlotOutcome>);
  const last = list.length;

  const charts: Record<string, string> = {
    'time.svg': await weekChart(
      'Wall time per week',
      'seconds',
      list.flatMap((r) => [
        { week: r.week, series: 'weekly crawl', value: r.crawlS },
        { week: r.week, series: 'weekly publish', value: r.publishS },
        { week: r.week, series: 'weekly publish: change detection', value: r.changeDetectionS },
        { week: r.week, series: 'ticks (all of the week)', value: r.ticksS },
        { week: r.week, series: 'portal build', value: r.portalS },
      ]),
    ),
    'memory.svg': await weekChart(
      'Peak RSS per process, each week',
      'MiB',
      list.flatMap((r) =>
        (Object.keys(r.peak) as (keyof Row['peak'])[]).map((k) => ({
          week: r.week,
          series: k === 'astro' ? 'portal: astro build (child)' : k,
          value: r.peak[k],
        })),
      ),
    ),
    'bytes.svg': await weekChart(
      'Bytes added to the snapshots folder per week, by kind',
      'MiB',
      list.flatMap((r) => FILE_KINDS.map((k) => ({ week: r.week, series: k, value: r.added[k] / MIB }))),
      'bar',
    ),
    'slots.svg': await weekChart(
      'Slots per week: late or early, missed',
      'slots',
      list.flatMap((r) => [
        { week: r.week, series: 'late or early', value: r.late.length },
        { week: r.week, series: 'missed', value: r.missed.length },
      ]),
      'bar',
    ),
  };

  const kills = year.runs.filter((r) => r.killed !== null);
  const checksTable = [
    '| check | result | detail |',
    '| --- | --- | --- |',
    ...input.checks.map((c) => `| ${c.name} | ${c.passed ? 'pass' : '**FAIL**'} | ${escapeCell(c.detail)} |`),
  ];
  const goal = (name: string, pick: (r: Row) => number | null) =>
    `| ${name} | ${ratio(list, pick)} | ${medianRatio(list, pick)} |`;
  const generated = [
    `Measured with \`${input.command}\` (seed ${input.seed}: ${input.docs} documents on ${input.plds} PLDs, a kernel of ${input.kernel} URIs),`,
    `${(input.wallMs / 60_000).toFixed(0)} minutes on this machine; first half \`${input.versions.old.label}\` (${input.versions.old.commit}),`,
    `second half the current code (${input.versions.current.commit}). ${year.runs.length} \`observatory\` processes,`,
    `${kills.length} of them killed with SIGKILL (${input.plan.filter((p) => p.event.kind === 'kill' || p.event.kind === 'upgrade').length} planned: ${kills.map((k) => `week ${k.week + 1} ${k.command} ${k.killed}`).join(', ')}).`,
    '',
    '### Checks',
    '',
    ...checksTable,
    '',
    `### Goals: week ${last} over week 2, measured in this run`,
    '',
    `| figure | week ${last} / week 2 | median of weeks ${last - 3}-${last} / of weeks 2-5 |`,
    '| --- | ---: | ---: |',
    goal('weekly snapshot: crawl wall time', (r) => r.crawlS),
    goal('weekly snapshot: publish wall time', (r) => r.publishS),
    goal('weekly snapshot: its change detection', (r) => r.changeDetectionS),
    goal('weekly snapshot: previousSnapshots (read up to wave2; compared with since)', (r) => r.previousRead),
    goal('ticks: wall time of the week', (r) => r.ticksS),
    goal('ticks that published (the strategy learning: more re-visits, not more cost each)', (r) => r.ticks),
    goal('a tick that published: mean wall time', (r) => r.tickPublishedS),
    goal('a tick with nothing to do: mean wall time', (r) => r.tickIdleS),
    goal('portal build wall time', (r) => r.portalS),
    goal('portal build: bytes fetched', (r) => r.fetchedBytes),
    goal('peak RSS: snapshot', (r) => r.peak.snapshot),
    goal('peak RSS: tick', (r) => r.peak.tick),
    goal('peak RSS: portal', (r) => r.peak.portal),
    goal("peak RSS: portal's astro build", (r) => r.peak.astro),
    goal('peak RSS: status', (r) => r.peak.status),
    goal('bytes added to the snapshots folder', (r) => r.addedTotal),
    goal("the simulated Web's real changes (the input)", (r) => r.webChanges),
    '',
    '![wall time per week](lifetime/time.svg)',
    '![peak RSS per process](lifetime/memory.svg)',
    '![bytes added per week](lifetime/bytes.svg)',
    '![late and missed slots](lifetime/slots.svg)',
    '',
    '### The year, week by week',
    '',
    'Times in seconds, memory in MiB, bytes in MiB added to the snapshots folder that week',
    `(${FILE_KINDS.map((k) => `${k}: ${FILE_KIND_LEGEND[k]}`).join('; ')}). Slots: on time / late or early / missed / nothing due (of 16).`,
    '',
    `| week | version | weekly snapshot | crawl | publish (change detection, previousSnapshots) | ticks: published, documents (s) | RSS snapshot / tick / portal / astro / status / simweb | ${FILE_KINDS.join(' / ')} | portal s | fetched MiB | slots | status | Web changes | requests | late, early and missed slots, why | events |`,
    `| ---: | --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |`,
    ...list
      .map((r) =>
        [
          r.week,
          r.version,
          escapeCell(r.weekly),
          fmt(r.crawlS),
          `${fmt(r.publishS)} (${fmt(r.changeDetectionS, 2)}, ${r.previousRead ?? '–'})`,
          `${r.ticks}, ${r.revisits} (${fmt(r.ticksS)})`,
          (Object.keys(r.peak) as (keyof Row['peak'])[]).map((k) => fmt(r.peak[k], 0)).join(' / '),
          FILE_KINDS.map((k) => (r.added[k] / MIB).toFixed(2)).join(' / '),
          fmt(r.portalS),
          r.fetchedBytes === null ? '–' : (r.fetchedBytes / MIB).toFixed(2),
          `${r.onTime} / ${r.late.length} / ${r.missed.length} / ${r.nothingDue}`,
          r.statusExit ?? '–',
          r.webChanges,
          r.requests,
          escapeCell(groupedReasons(r)),
          escapeCell(r.events.join('; ')),
        ].join(' | '),
      )
      .map((line) => `| ${line} |`),
    '',
    '### The plan of faults (seeded)',
    '',
    'Where an event found no run to act on (a tick with nothing due, a run that ended first), it acted',
    'on the next run it could act on; the slot it acted at is given when it differs.',
    '',
    ...input.plan.map((p) => {
      const at = year.actedAt.get(p.event);
      const acted =
        at === undefined || at === null
          ? ' (never acted: no run to act on before the year ended)'
          : at.week !== p.week + 1 || at.slot !== p.slot
            ? ` (acted at week ${at.week}, slot ${at.slot})`
            : '';
      return `- week ${p.week + 1}, slot ${p.slot}: ${describeEvent(p.event)}${acted}`;
    }),
    ...input.leftOut.map((e) => `- left out (the year is too short for it): ${describeEvent(e)}`),
    '',
  ].join('\n');

  mkdirSync(join(input.out, 'lifetime'), { recursive: true });
  for (const [name, svg] of Object.entries(charts)) writeFileSync(join(input.out, 'lifetime', name), svg);
  writeFileSync(join(input.out, 'lifetime.md'), `# A year unattended (generated)\n\n${generated}`);
  if (!input.publish) return;
  const docs = join(input.repo, 'docs');
  mkdirSync(join(docs, 'lifetime'), { recursive: true });
  for (const [name, svg] of Object.entries(charts)) writeFileSync(join(docs, 'lifetime', name), svg);
  const page = join(docs, 'lifetime.md');
  const begin = '<!-- lifetime:begin (written by npm run lifetime -- --publish) -->';
  const end = '<!-- lifetime:end -->';
  const text = existsSync(page) ? readFileSync(page, 'utf8') : `# A year unattended\n\n${begin}\n${end}\n`;
  const [head, rest] = text.split(begin);
  const tail = rest?.split(end)[1] ?? '\n';
  writeFileSync(page, `${head}${begin}\n${generated}\n${end}${tail}`);
}
