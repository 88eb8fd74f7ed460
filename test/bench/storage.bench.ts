/**
 * What a snapshot costs on disk (#33 item 5): bytes a weekly snapshot and a tick write, by file
 * kind (WARC records by type, the index, each table, the dump, the rest), for three versions of the
 * code: `today`, before #33 (the `wave2` tag, the lifetime benchmark's worktree), `before`, the
 * commit before the adaptive part of a weekly crawl was deduplicated (BEFORE), and `after`, this
 * checkout. One simulated Web with documents of realistic size (`--doc-sizes dyldo`) in its own
 * process, three scenarios: (a) nothing changes (the crawls after the Web's span of changes), (b) 5%
 * of the documents change between the two weekly crawls (the gap chosen from the ground truth),
 * (c) the simulated Web's default dynamics over a week. Each: a first weekly snapshot (the full
 * week; a kernel of half the documents, the adaptive crawl finds the rest), a second one, then the
 * first tick after it with documents due. Also each second week's crawl time and peak RSS, so that
 * "unchanged within noise" is checked in the same run (after against before: the same code but
 * for this change). BENCH_STORAGE_DOCS (default 400) sets the Web's size.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipMembers } from '../../pipeline/archive/index.ts';
import { startCli, type Version } from '../lifetime/cli-process.ts';
import { crawlAndPublishMs, logLinesSince } from '../lifetime/run-log.ts';
import { startSimWebServer, type TruthLine } from '../lifetime/simweb-control.ts';
import { prepareVersions } from '../lifetime/versions.ts';

const DAY = 86_400_000;
/** A tick's slot (`observatory tick --help`), and the slots of a week. */
const SLOT = 10.5 * 3_600_000;
const WEEK_SLOTS = 16;
/**
 * The code just before the adaptive part of a weekly crawl was deduplicated (revisits for the
 * kernel's URLs only, request records with a payload digest): what "after" changed by itself.
 */
const BEFORE = { commit: 'b31362a' } as const;
const DOCS = Number(process.env.BENCH_STORAGE_DOCS ?? 400);
/** Share of documents that change between the two weekly crawls of scenario (b). */
const CHANGED_SHARE = 0.05;

/** A detached worktree of `commit` in `dir` (made if missing), node_modules shared with `repo`. */
function worktreeAt(repo: string, dir: string, commit: string): Version {
  if (!existsSync(join(dir, '.git'))) {
    execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: repo, stdio: 'ignore' });
  }
  if (!existsSync(join(dir, 'node_modules')))
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  return { label: commit, dir, cli: join(dir, 'pipeline', 'cli.ts'), commit };
}

/** Bytes of one snapshot folder by kind: WARC records by type, the index, each table, the dump, the rest. */
function folderBytes(folder: string): Map<string, number> {
  const bytes = new Map<string, number>();
  const add = (kind: string, n: number) => bytes.set(kind, (bytes.get(kind) ?? 0) + n);
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (!statSync(path).isFile()) continue;
    if (name.endsWith('.warc.gz')) {
      for (const member of gzipMembers(path)) {
        const head = member.body.subarray(0, member.body.indexOf('\r\n\r\n')).toString('latin1');
        const type = /^WARC-Type: *(\S+)/im.exec(head)?.[1];
        add(`WARC ${type ?? '?'}`, member.length);
      }
    } else if (name.startsWith('index.cdx')) add('CDXJ index', statSync(path).size);
    else if (name.endsWith('.parquet') || name === 'data.nq.gz') add(name, statSync(path).size);
    else add('metadata', statSync(path).size);
  }
  return bytes;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const warcBytes = (m: Map<string, number>) =>
  [...m].filter(([k]) => k.startsWith('WARC')).reduce((a, [, v]) => a + v, 0);

interface Crawl {
  readonly folder: Map<string, number>;
  readonly documents: number;
  readonly crawlMs: number | null;
  readonly peakRssMiB: number | null;
}

interface Scenario {
  readonly name: string;
  readonly weeks: readonly [number, number];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The first moment after `from` by which `share` of the documents changed at least once. */
function gapFor(truth: readonly TruthLine[], from: number, share: number): number {
  const firsts = truth
    .filter((t) => t.kind === 'document')
    .map((t) => t.changes.map((c) => Date.parse(c.at)).find((at) => at > from) ?? Number.POSITIVE_INFINITY)
    .sort((a, b) => a - b);
  const documents = truth.filter((t) => t.kind === 'document').length;
  return firsts[Math.ceil(share * documents) - 1] + 1;
}

/** Runs the storage benchmark and prints its tables. */
export default async function (): Promise<void> {
  const repo = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
  const { old, current } = prepareVersions(repo, join(repo, '.bench', 'lifetime-wave2'), () => {});
  const versions: Version[] = [
    { ...old, label: 'today' },
    { ...worktreeAt(repo, join(repo, '.bench', 'storage-before'), BEFORE.commit), label: 'before' },
    { ...current, label: 'after' },
  ];
  const work = mkdtempSync(join(tmpdir(), 'storage-bench-'));
  const sim = await startSimWebServer(current, [
    ...['--docs', String(DOCS), '--plds', String(Math.max(20, Math.round(DOCS / 12)))],
    ...['--doc-sizes', 'dyldo', '--latency-scale', '0.05', '--faults', '0.5', '--seed', '7'],
  ]);
  try {
    const epoch = Number(
      JSON.parse(await (await fetch(`http://127.0.0.1:${sim.port}/__sim/clock`)).text()).ms,
    );
    const horizonEnd = epoch + 2 * 365 * DAY;
    const truth = await sim.truth(horizonEnd);
    const documents = truth.filter((t) => t.kind === 'document').map((t) => t.uri);
    // half of the documents as the kernel: the weekly crawl's adaptive half finds the others by links
    const kernel = join(work, 'kernel.txt');
    writeFileSync(kernel, `${documents.filter((_, i) => i % 2 === 0).join('\n')}\n`);
    const changing = epoch + 60 * DAY;
    const scenarios: Scenario[] = [
      { name: '(a) nothing changes', weeks: [horizonEnd + DAY, horizonEnd + 8 * DAY] },
      { name: '(b) 5% change', weeks: [changing, gapFor(truth, changing, CHANGED_SHARE)] },
      { name: '(c) default dynamics', weeks: [changing, changing + 7 * DAY] },
    ];
    const crawlArgs = (log: string) => [
      ...['--resolve', sim.resolveRule, '--allow-private', '--delay', '0.02', '--timeout', '2s'],
      ...['--crawl-delay-cap', '0.1s', '--log', log, '--log-level', 'info'],
    ];
    const published = (root: string) =>
      existsSync(root) ? new Set(readdirSync(root).filter((n) => /^\d{4}-/.test(n))) : new Set<string>();
    /** One `observatory` run at `now`; null when it published nothing (a tick with nothing due). */
    const run = async (v: Version, root: string, args: string[], now: number): Promise<Crawl | null> => {
      await sim.setClock(now);
      const log = join(work, `${v.label}.log`);
      const before = existsSync(log) ? statSync(log).size : 0;
      const earlier = published(root);
      const started = Date.now();
      const done = await startCli(v, [...args, '--out', root, '--now', iso(now), ...crawlArgs(log)], {
        cwd: work,
        env: process.env,
        outputLog: join(work, 'output.log'),
        label: args[0],
      }).exited;
      if (done.exitCode !== 0)
        throw new Error(`${v.label} ${args[0]} exited ${done.exitCode}: ${done.stderr}`);
      const lines = logLinesSince(log, before);
      const finished = lines.find((l) => l.msg === 'crawl finished');
      const added = [...published(root)].filter((n) => !earlier.has(n));
      if (added.length === 0) return null;
      return {
        folder: folderBytes(join(root, added[0])),
        documents: Number(finished?.documents ?? 0),
        crawlMs: crawlAndPublishMs(lines, started).crawlMs,
        peakRssMiB: (finished?.peakRssMiB as number | undefined) ?? null,
      };
    };
    const weekly = async (v: Version, root: string, now: number) =>
      (await run(v, root, ['snapshot', '--kernel', kernel], now))!;
    /** The first tick after `from` that has kernel documents due, slot by slot over the week; null: none. */
    const tick = async (v: Version, root: string, from: number) => {
      for (let slot = 1; slot < WEEK_SLOTS; slot++) {
        const crawled = await run(v, root, ['tick'], from + slot * SLOT);
        if (crawled !== null) return crawled;
      }
      return null;
    };
    const results = new Map<string, { full: Crawl; week: Crawl; tick: Crawl | null }>();
    const shared = new Map<string, Crawl>();
    // versions one after the other within each scenario, so that a change of load spreads over all
    for (const s of scenarios) {
      for (const v of versions) {
        const root = join(work, v.label, s.name.slice(1, 2));
        // (b) and (c) share their first week: a copy of the root it was published in
        const firstWeek = join(work, v.label, 'first-week');
        let full = s.weeks[0] === changing ? shared.get(v.label) : undefined;
        if (full !== undefined) execFileSync('cp', ['-a', firstWeek, root]);
        else {
          full = await weekly(v, root, s.weeks[0]);
          if (s.weeks[0] === changing) {
            execFileSync('cp', ['-a', root, firstWeek]);
            shared.set(v.label, full);
          }
        }
        const week = await weekly(v, root, s.weeks[1]);
        results.set(`${v.label} ${s.name}`, { full, week, tick: await tick(v, root, s.weeks[1]) });
      }
    }
    const kib = (n: number) => (n / 1024).toFixed(0);
    const ratio = (a: number, b: number) => (b === 0 ? '-' : (a / b).toFixed(3));
    const seconds = (ms: number | null) => (ms === null ? '-' : (ms / 1000).toFixed(1));
    process.stdout.write(
      `${documents.length} documents on the simulated Web (--doc-sizes dyldo, faults 0.5), kernel ${Math.ceil(documents.length / 2)}; ` +
        versions.map((v) => `${v.label} = ${v.commit}`).join(', ') +
        '\n\n',
    );
    for (const s of scenarios) {
      const all = versions.map((v) => results.get(`${v.label} ${s.name}`)!);
      const kinds = [
        ...new Set(
          all.flatMap((r) => [r.full, r.week, r.tick].flatMap((c) => [...(c?.folder.keys() ?? [])])),
        ),
      ].sort();
      process.stdout.write(
        `### ${s.name}: weeks ${iso(s.weeks[0]).slice(0, 16)} and ${iso(s.weeks[1]).slice(0, 16)}, ${all.at(-1)!.week.documents} documents in the second (KiB)\n\n`,
      );
      const labels = versions.map((v) => v.label);
      process.stdout.write(
        `| file kind | ${['full week', 'second week', 'tick'].flatMap((c) => labels.map((l) => `${c} ${l}`)).join(' | ')} |\n`,
      );
      process.stdout.write(`| --- |${' ---: |'.repeat(3 * labels.length)}\n`);
      const row = (label: string, f: (m: Map<string, number>) => number) => {
        const cells = (['full', 'week', 'tick'] as const).flatMap((c) =>
          all.map((r) => {
            const crawl = r[c];
            return crawl === null ? 'none due' : kib(f(crawl.folder));
          }),
        );
        process.stdout.write(`| ${label} | ${cells.join(' | ')} |\n`);
      };
      for (const kind of kinds) row(kind, (m) => m.get(kind) ?? 0);
      row('**WARC**', warcBytes);
      row('**folder**', total);
      process.stdout.write('\n');
      for (const [i, r] of all.entries()) {
        process.stdout.write(
          `${labels[i]}: second week / full week: WARC ${ratio(warcBytes(r.week.folder), warcBytes(r.full.folder))}, folder ${ratio(total(r.week.folder), total(r.full.folder))}; ` +
            `tick / full week WARC ${r.tick === null ? 'none due' : ratio(warcBytes(r.tick.folder), warcBytes(r.full.folder))}; ` +
            `second week's crawl ${seconds(r.week.crawlMs)} s, peak RSS ${r.week.peakRssMiB} MiB\n`,
        );
      }
      const [today, before, after] = all;
      process.stdout.write(
        `after / today: second week WARC ${ratio(warcBytes(after.week.folder), warcBytes(today.week.folder))}, folder ${ratio(total(after.week.folder), total(today.week.folder))}; ` +
          (after.tick && today.tick
            ? `tick WARC ${ratio(warcBytes(after.tick.folder), warcBytes(today.tick.folder))}, folder ${ratio(total(after.tick.folder), total(today.tick.folder))}\n`
            : 'tick: none due in one of them\n'),
      );
      process.stdout.write(
        `after / before: second week WARC ${ratio(warcBytes(after.week.folder), warcBytes(before.week.folder))}, folder ${ratio(total(after.week.folder), total(before.week.folder))}; ` +
          `second week's crawl makespan ${ratio(after.week.crawlMs ?? 0, before.week.crawlMs ?? 0)}, peak RSS ${ratio(after.week.peakRssMiB ?? 0, before.week.peakRssMiB ?? 0)}\n\n`,
      );
    }
    process.stdout.write(
      `peak RSS of the simulated Web: ${sim.sampler.processes()[0]?.peakMiB ?? '-'} MiB\n`,
    );
  } finally {
    await sim.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
