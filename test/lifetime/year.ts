/**
 * The year itself: a virtual clock moved slot by slot (16 a week), and at each slot the processes
 * a crontab would start, each a fresh `observatory` process of the version installed at the time:
 * `snapshot` and `tick` together at slot 0 (cron fires both at Monday 00:00), `tick` at every other
 * slot, the portal built once a week after the weekly snapshot the way the CI workflow builds it
 * (a fresh checkout, `--snapshots-url` over HTTP, its cache restored and saved), and `status` at the
 * end of each week. The faults of the year plan are injected at their slots; nothing else touches
 * the snapshots root (no manual step).
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { servePortal } from '../../pipeline/portal/index.ts';
import { SLOT_MS, SLOTS_PER_WEEK, seededRandom, WEEK } from '../../pipeline/schedule/index.ts';
import { type RunningCli, startCli, type Version } from './cli-process.ts';
import { bytesByKind, FILE_KINDS, type FileKind } from './folder-bytes.ts';
import { phaseSince, type RunPhase } from './incomplete-phase.ts';
import type { LoopDisk } from './loop-disk.ts';
import { crawlAndPublishMs, logLinesSince, logOffset } from './run-log.ts';
import type { SimWebServer } from './simweb-control.ts';
import { describeEvent, type PlannedEvent, type YearEvent } from './year-plan.ts';

export interface YearOptions {
  readonly out: string;
  /** The snapshots root (on the loop disk). */
  readonly root: string;
  readonly disk: LoopDisk;
  readonly sim: SimWebServer;
  readonly weeks: number;
  readonly seed: number;
  /** Virtual time of week 0's boundary (a Monday 00:00 UTC). */
  readonly start: number;
  readonly old: Version;
  readonly current: Version;
  readonly plan: readonly PlannedEvent[];
  /** Picks the PLD the outage takes down, from the kernel the first expansion found. */
  readonly outagePld: (kernel: readonly string[]) => string;
  readonly say: (line: string) => void;
}

/** One `observatory` process of the year, as the report keeps it. */
export interface RunRecord {
  readonly week: number;
  readonly slot: number;
  readonly command: string;
  readonly version: string;
  /** The `--now` it was given (the machine's clock at the time, offset included). */
  readonly now: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** When it was killed on purpose, the phase it was in. */
  readonly killed: RunPhase | 'building' | null;
  readonly wallMs: number;
  readonly crawlMs: number | null;
  readonly publishMs: number | null;
  /** The publish's change detection phase (ms): it reads earlier snapshots. */
  readonly changeDetectionMs: number | null;
  readonly peakMiB: number;
  readonly children: readonly { readonly command: string; readonly peakMiB: number }[];
  readonly orphans: number;
  /** Its stdout, the lines it printed for cron (first 1,000 characters). */
  readonly said: string;
  /** The last `observatory:` line of its stderr when it failed. */
  readonly error: string | null;
}

/** One slot: what cron started there and what was done to it. */
export interface SlotRecord {
  readonly week: number;
  readonly slot: number;
  /** True time of the slot's start. */
  readonly at: string;
  readonly offsetMs: number;
  readonly events: readonly string[];
  /** The tick's first line of output. */
  readonly tick: string;
}

export interface WeekRecord {
  readonly week: number;
  readonly start: string;
  readonly version: string;
  /** Bytes under the snapshots root at the week's end, per kind (distinct files). */
  readonly bytes: Record<FileKind, number>;
  /** Bytes and files the week's last portal build fetched. */
  readonly portalFetched: { readonly bytes: number; readonly files: number } | null;
  readonly statusExit: number | null;
  readonly statusProblems: readonly string[];
  /** Requests the simulated Web logged this week, and its peak RSS so far. */
  readonly requests: number;
  readonly simwebPeakMiB: number;
  /** Bytes of the `--log` files and the cron output so far. */
  readonly logBytes: number;
}

export interface YearResult {
  readonly runs: RunRecord[];
  readonly slots: SlotRecord[];
  readonly weeks: WeekRecord[];
  /** Every URL the simulated Web answered 200 or 304 (robots.txt aside), with the virtual time it first did. */
  readonly answered: Map<string, number>;
  /** Steps taken by hand besides the upgrade (none: the year counts them to prove it). */
  readonly manualSteps: string[];
  /** Where each planned event acted (week and slot, 1-based week), or null when it never found a run to act on. */
  readonly actedAt: ReadonlyMap<YearEvent, { readonly week: number; readonly slot: number } | null>;
  /** URL of the served snapshots folder and of the deployed portal (both still served). */
  readonly snapshotsUrl: string;
  readonly pagesUrl: string;
  /** The deployed site's folder. */
  readonly pages: string;
  readonly kernel: readonly string[];
  readonly outagePld: string;
  /** Bytes under the root after the first expansion, before week 1. */
  readonly baselineBytes: Record<FileKind, number>;
  stopServers(): Promise<void>;
}

const iso = (t: number) => new Date(t).toISOString();
const firstLine = (text: string) => text.split('\n').find((l) => l.trim() !== '') ?? '';

interface Started {
  readonly running: RunningCli;
  readonly week: number;
  readonly slot: number;
  readonly now: number;
  readonly wallStart: number;
  readonly logFrom: number;
  readonly log: string | null;
  killed: RunPhase | 'building' | null;
}

/** Runs the year; returns its records (the caller checks and reports). */
export async function runYear(o: YearOptions): Promise<YearResult> {
  const random = seededRandom(o.seed ^ 0x5eed);
  const logs = join(o.out, 'logs');
  mkdirSync(logs, { recursive: true });
  const cronOutput = join(logs, 'cron-output.log');
  const logFile = (command: string) => join(logs, `${command}.json`);
  // stacks on failure; Node's compile cache, as npm test uses it (a thousand process starts)
  const env = {
    ...process.env,
    OBSERVATORY_DEBUG: '1',
    NODE_COMPILE_CACHE: join(o.out, '.node-compile-cache'),
  };
  const runs: RunRecord[] = [];
  const slots: SlotRecord[] = [];
  const weeks: WeekRecord[] = [];
  const answered = new Map<string, number>();
  const actedAt = new Map<YearEvent, { week: number; slot: number } | null>(
    o.plan.map((p) => [p.event, null]),
  );
  let version = o.old;
  let logSeq = 0;

  // the published snapshots folder, and the deployed portal (what GitHub Pages would serve)
  const snapshotsServer = await servePortal({ dir: o.root });
  const ci = join(o.out, 'ci');
  const deployed = join(ci, 'deployed');
  const pages = join(ci, 'pages');
  mkdirSync(join(deployed, 'none'), { recursive: true });
  rmSync(pages, { force: true });
  symlinkSync(join(deployed, 'none'), pages);
  const pagesServer = await servePortal({ dir: pages });

  const crawlArgs = (command: string) => [
    '--resolve',
    o.sim.resolveRule,
    '--allow-private',
    '--delay',
    '0.02',
    '--timeout',
    '2s',
    '--crawl-delay-cap',
    '0.1s',
    '--log',
    logFile(command),
    '--log-level',
    'info',
  ];
  const snapshotArgs = (now: number) => [
    'snapshot',
    '--kernel',
    join(o.out, 'seeds', 'kernel.txt'),
    '--out',
    o.root,
    '--now',
    iso(now),
    ...crawlArgs('snapshot'),
  ];
  const tickArgs = (now: number) => ['tick', '--out', o.root, '--now', iso(now), ...crawlArgs('tick')];
  const expandArgs = (now: number) => [
    'expand',
    '--seeds',
    join(o.out, 'seeds', 'core.txt'),
    '--kernel',
    join(o.out, 'seeds', 'kernel.txt'),
    '--report',
    join(o.out, 'seeds', 'kernel-report.json'),
    '--repeat',
    '1',
    '--out',
    o.root,
    '--work',
    join(o.out, 'work', 'expand'),
    '--now',
    iso(now),
    ...crawlArgs('expand'),
  ];

  const start = (week: number, slot: number, args: string[], now: number, v = version): Started => {
    const log = args.includes('--log') ? args[args.indexOf('--log') + 1] : null;
    const logFrom = log ? logOffset(log) : 0;
    const wallStart = Date.now();
    const running = startCli(v, args, {
      cwd: o.out,
      env,
      outputLog: cronOutput,
      label: `week ${week + 1} slot ${slot}`,
    });
    return { running, week, slot, now, wallStart, logFrom, log, killed: null };
  };
  const finish = async (s: Started): Promise<{ record: RunRecord; stdout: string }> => {
    const run = await s.running.exited;
    // orphans of a killed process (Astro's build under a killed portal) finish before the year goes on
    for (let waited = 0; run.orphans.length > 0 && waited < 120_000; waited += 200) {
      if (!run.orphans.some((pid) => existsSync(`/proc/${pid}`))) break;
      await sleep(200);
    }
    const lines = s.log ? logLinesSince(s.log, s.logFrom) : [];
    const timing = crawlAndPublishMs(lines, s.wallStart);
    const failure = run.stderr
      .split('\n')
      .filter((l) => l.startsWith('observatory:'))
      .at(-1);
    const record: RunRecord = {
      week: s.week,
      slot: s.slot,
      command: run.command,
      version: run.version,
      now: iso(s.now),
      exitCode: run.exitCode,
      signal: run.signal,
      killed: s.killed,
      wallMs: run.wallMs,
      crawlMs: timing.crawlMs,
      publishMs: timing.publishMs,
      changeDetectionMs:
        (lines.find((l) => l.msg === 'publish phase' && l.phase === 'change detection')?.ms as
          | number
          | undefined) ?? null,
      peakMiB: run.peakMiB,
      children: run.children,
      orphans: run.orphans.length,
      said: run.stdout.slice(0, 1000),
      error: run.exitCode === 0 || run.signal ? null : (failure ?? firstLine(run.stderr.slice(-400))),
    };
    runs.push(record);
    return { record, stdout: run.stdout };
  };
  const outcome = (r: { record: RunRecord; stdout: string }) =>
    firstLine(r.stdout) || `exit ${r.record.exitCode ?? r.record.signal}: ${r.record.error ?? ''}`;

  /** Waits until the run is in `phase` (or has ended), then a random part of `maxDelayMs`; the phase then. */
  const reach = async (s: Started, phase: RunPhase, maxDelayMs: number): Promise<RunPhase | null> => {
    while (s.running.running()) {
      const seen = phaseSince(o.root, s.wallStart);
      if (seen === phase || (phase === 'crawling' && seen === 'publishing')) break;
      await sleep(10);
    }
    if (!s.running.running()) return null;
    await sleep(random() * maxDelayMs);
    return s.running.running() ? phaseSince(o.root, s.wallStart) : null;
  };
  // how long the last crawl of each kind took: a kill "while crawling" falls within it
  const lastCrawlMs = { snapshot: 10_000, tick: 1_500 };
  const kill = async (s: Started, phase: RunPhase, maxDelayMs: number): Promise<boolean> => {
    const at = await reach(s, phase, maxDelayMs);
    if (at === null) return false;
    s.killed = at;
    s.running.kill();
    return true;
  };
  const fillDisk = async (s: Started, phase: RunPhase): Promise<boolean> => {
    const at = await reach(s, phase, phase === 'crawling' ? lastCrawlMs.tick * 0.3 : 50);
    if (at === null) return false;
    o.disk.fill(64 * 1024);
    return true;
  };

  const status = async (week: number, slot: number, now: number) => {
    const r = await finish(
      start(week, slot, ['status', '--root', o.root, '--now', iso(now)], now, o.current),
    );
    return {
      exit: r.record.exitCode,
      problems: r.stdout
        .split('\n')
        .filter((l) => l.startsWith('  - '))
        .map((l) => l.slice(4)),
    };
  };

  // the portal as the CI workflow builds it: a fresh checkout, the cache of the last successful build
  // restored; on success the cache saved and the site deployed (what Pages serves)
  let portalStale = false;
  let lastFetched: { bytes: number; files: number } | null = null;
  /** Builds (and, when asked, kills the build); whether the kill happened. */
  const buildPortal = async (week: number, slot: number, killIt: boolean): Promise<boolean> => {
    const checkout = join(ci, 'checkout');
    rmSync(checkout, { recursive: true, force: true });
    mkdirSync(join(checkout, 'generated'), { recursive: true });
    // what the workflow's cache step restores: the portal's cache and the files fetched into --root
    if (existsSync(join(ci, 'cache')))
      cpSync(join(ci, 'cache'), join(checkout, 'generated', 'cache'), { recursive: true });
    if (existsSync(join(ci, 'mirror')))
      cpSync(join(ci, 'mirror'), join(checkout, 'snapshots'), { recursive: true });
    const s = start(
      week,
      slot,
      [
        'portal',
        '--snapshots-url',
        snapshotsServer.url,
        '--root',
        join(checkout, 'snapshots'),
        '--out',
        join(checkout, 'site'),
        '--data',
        join(checkout, 'generated'),
        '--base-url',
        pagesServer.url,
      ],
      o.start + week * WEEK + slot * SLOT_MS,
    );
    if (killIt) {
      await sleep(500 + random() * 4000);
      if (s.running.running()) {
        s.killed = 'building';
        s.running.kill();
      }
    }
    const r = await finish(s);
    const fetched = /fetched (\d+) files, (\d+) bytes/.exec(r.stdout);
    lastFetched = fetched ? { files: Number(fetched[1]), bytes: Number(fetched[2]) } : null;
    portalStale = r.record.exitCode !== 0;
    if (portalStale) return s.killed !== null;
    rmSync(join(ci, 'cache'), { recursive: true, force: true });
    cpSync(join(checkout, 'generated', 'cache'), join(ci, 'cache'), { recursive: true });
    rmSync(join(ci, 'mirror'), { recursive: true, force: true });
    cpSync(join(checkout, 'snapshots'), join(ci, 'mirror'), { recursive: true });
    const name = `week-${week + 1}-slot-${slot}`;
    renameSync(join(checkout, 'site'), join(deployed, name));
    const link = `${pages}.next`;
    rmSync(link, { force: true });
    symlinkSync(join(deployed, name), link);
    renameSync(link, pages);
    for (const old of readdirSync(deployed))
      if (old !== name) rmSync(join(deployed, old), { recursive: true, force: true });
    return false;
  };

  const drainRequests = async (): Promise<number> => {
    const entries = await o.sim.drainLog(logSeq);
    for (const e of entries) {
      logSeq = Math.max(logSeq, e.seq);
      const path = e.path.split('?')[0];
      // robots.txt (and the simulated Web's redirected robots.txt) is no document
      if (
        e.method === 'GET' &&
        (e.status === 200 || e.status === 304) &&
        !/\/robots(-moved)?\.txt$/.test(path)
      )
        if (!answered.has(`${e.scheme}://${e.host}${e.path}`))
          answered.set(`${e.scheme}://${e.host}${e.path}`, e.virtualAt);
    }
    return entries.length;
  };

  // the machine's clock is off for a clock event's slot and the next (then NTP steps it back)
  const offsets = new Map<number, number>();
  for (const p of o.plan)
    if (p.event.kind === 'clock') {
      const g = p.week * SLOTS_PER_WEEK + p.slot;
      offsets.set(g, p.event.offsetMs);
      offsets.set(g + 1, p.event.offsetMs);
    }
  // before the year: the kernel, as an operator makes it once (the old version is installed)
  const expandAt = o.start - 3_600_000;
  await o.sim.setClock(expandAt);
  const expanded = await finish(start(-1, 0, expandArgs(expandAt), expandAt));
  if (expanded.record.exitCode !== 0)
    throw new Error(`the first expand failed: ${expanded.record.error ?? expanded.record.signal}`);
  const kernel = readFileSync(join(o.out, 'seeds', 'kernel.txt'), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
  const outagePld = o.outagePld(kernel);
  o.say(`kernel: ${kernel.length} URIs; the outage will take down ${outagePld}`);
  const baselineBytes = bytesByKind(o.root);

  let outageEnds: number | null = null;
  let freeDiskAt: number | null = null;
  // events that found no run to act on are carried to the next slot
  let pending: YearEvent[] = [];

  for (let week = 0; week < o.weeks; week++) {
    const weekStart = o.start + week * WEEK;
    o.say(`week ${week + 1}/${o.weeks} (${iso(weekStart).slice(0, 10)}, ${version.label})`);
    for (let slot = 0; slot < SLOTS_PER_WEEK; slot++) {
      const g = week * SLOTS_PER_WEEK + slot;
      const at = weekStart + slot * SLOT_MS;
      const offsetMs = offsets.get(g) ?? 0;
      const now = at + offsetMs;
      const planned = o.plan.filter((p) => p.week === week && p.slot === slot).map((p) => p.event);
      // the last two weeks stay quiet: what waits to act then never does (the goals compare the last week)
      const here = [...planned, ...(week < o.weeks - 2 ? pending : [])];
      pending = [];
      const events: string[] = planned.map(describeEvent);
      // each event is taken by the run it acts on; one that finds no run is carried to the next slot
      const consumed = new Set<YearEvent>(here.filter((e) => e.kind === 'clock'));
      const take = (test: (e: YearEvent) => boolean): YearEvent | null => {
        const e = here.find((x) => !consumed.has(x) && test(x)) ?? null;
        if (e) {
          consumed.add(e);
          actedAt.set(e, { week: week + 1, slot });
        }
        return e;
      };
      for (const e of here) if (e.kind === 'clock') actedAt.set(e, { week: week + 1, slot });
      /** The event found no run to act on here (`why`): it waits for the next slot. */
      const carry = (e: YearEvent, _why: string) => {
        consumed.delete(e);
        actedAt.set(e, null);
      };
      const killOf = (target: string) => take((e) => e.kind === 'kill' && e.target === target);

      if (freeDiskAt !== null && g >= freeDiskAt) {
        o.disk.free();
        freeDiskAt = null;
        events.push('disk space freed (the other tenant removed its file)');
      }
      if (outageEnds !== null && at >= outageEnds) {
        await o.sim.setUnreachable([]);
        outageEnds = null;
        events.push(`${outagePld} reachable again`);
      }
      const outage = take((e) => e.kind === 'outage');
      if (outage?.kind === 'outage') {
        await o.sim.setUnreachable([outagePld]);
        outageEnds = at + outage.days * 86_400_000;
        events.push(`${outagePld} unreachable until ${iso(outageEnds).slice(0, 16)}`);
      }
      await o.sim.setClock(at);

      if (slot === 0) {
        // cron starts both at Monday 00:00; the lock decides which one crawls
        const upgrade = take((e) => e.kind === 'upgrade');
        const snapshot = start(week, slot, snapshotArgs(now), now);
        const tick = start(week, slot, tickArgs(now), now);
        let beside: Started | null = null;
        const crawlKill = upgrade ?? killOf('weekly-crawl');
        const publishKill = crawlKill ? null : killOf('weekly-publish');
        const diskFull =
          crawlKill || publishKill
            ? null
            : take((e) => e.kind === 'disk-full' && e.target === 'weekly-publish');
        const slow = crawlKill || publishKill || diskFull ? null : take((e) => e.kind === 'slow-snapshot');
        if (crawlKill) {
          if (!(await kill(snapshot, 'crawling', lastCrawlMs.snapshot * 0.6)) && crawlKill !== upgrade)
            carry(crawlKill, 'the weekly snapshot ended before it was killed while crawling');
        } else if (publishKill) {
          if (!(await kill(snapshot, 'publishing', 300)))
            carry(publishKill, 'the weekly snapshot ended before it was killed while publishing');
        } else if (diskFull) {
          if (await fillDisk(snapshot, 'publishing')) freeDiskAt = g + 1;
          else carry(diskFull, 'the weekly snapshot ended before the disk filled');
        } else if (slow) {
          // the snapshot runs long: the next slot's tick fires while it crawls
          await reach(snapshot, 'crawling', 0);
          const next = at + SLOT_MS + (offsets.get(g + 1) ?? 0);
          beside = start(week, slot + 1, tickArgs(next), next);
        }
        const snapshotRun = await finish(snapshot);
        const tickRun = await finish(tick);
        if (snapshot.killed) events.push(`weekly snapshot killed while ${snapshot.killed}`);
        else if (snapshotRun.record.crawlMs !== null) lastCrawlMs.snapshot = snapshotRun.record.crawlMs;
        if (beside) {
          const besideRun = await finish(beside);
          slots.push({
            week,
            slot: slot + 1,
            at: iso(at + SLOT_MS),
            offsetMs: offsets.get(g + 1) ?? 0,
            events: ['its tick started while the weekly snapshot still ran'],
            tick: outcome(besideRun),
          });
        }
        if (diskFull && freeDiskAt !== null) {
          const s = await status(week, slot, now);
          events.push(
            `status during the episode: exit ${s.exit}${s.problems.length ? ` (${s.problems.join('; ')})` : ''}`,
          );
        }
        if (upgrade) {
          // the upgrade: this checkout installed, then what docs/operating.md says to run
          version = o.current;
          const migrate = await finish(start(week, slot, ['migrate', '--root', o.root], now));
          events.push(
            `migrate: exit ${migrate.record.exitCode}: ${migrate.stdout.trim().split('\n').at(-1) ?? ''}`,
          );
        }
        const portalKill = killOf('portal');
        if (!(await buildPortal(week, slot, portalKill !== null)) && portalKill)
          carry(portalKill, 'the portal build ended before it was killed');
        if (portalKill && consumed.has(portalKill)) events.push('portal build killed');
        for (const e of here) if (!consumed.has(e)) pending.push(e);
        slots.push({ week, slot, at: iso(at), offsetMs, events, tick: outcome(tickRun) });
        if (beside) slot++;
        continue;
      }

      // a tick at every other slot
      const tick = start(week, slot, tickArgs(now), now);
      const crawlKill = killOf('tick-crawl');
      const publishKill = crawlKill ? null : killOf('tick-publish');
      const diskFull =
        crawlKill || publishKill ? null : take((e) => e.kind === 'disk-full' && e.target === 'tick-crawl');
      if (crawlKill && !(await kill(tick, 'crawling', lastCrawlMs.tick * 0.6)))
        carry(crawlKill, 'the tick did not crawl, or ended first');
      if (publishKill && !(await kill(tick, 'publishing', 200)))
        carry(publishKill, 'the tick did not publish, or ended first');
      if (diskFull) {
        if (await fillDisk(tick, 'crawling')) freeDiskAt = g + 1;
        else carry(diskFull, 'the tick did not crawl, or ended first');
      }
      const tickRun = await finish(tick);
      if (tick.killed) events.push(`tick killed while ${tick.killed}`);
      else if (tickRun.record.crawlMs !== null) lastCrawlMs.tick = Math.max(500, tickRun.record.crawlMs);
      if (diskFull && freeDiskAt !== null) {
        const s = await status(week, slot, now);
        events.push(
          `status during the episode: exit ${s.exit}${s.problems.length ? ` (${s.problems.join('; ')})` : ''}`,
        );
      }
      // a failed portal build is retried at the next slot (the workflow runs on the next dispatch)
      if (portalStale) {
        events.push('portal build retried');
        await buildPortal(week, slot, false);
      }
      if (take((e) => e.kind === 'expand')) {
        const expandAt = now + 60 * 60_000;
        const expand = await finish(start(week, slot, expandArgs(expandAt), expandAt));
        const kernel = expand.stdout.split('\n').find((l) => l.startsWith('kernel')) ?? '';
        events.push(`expand: exit ${expand.record.exitCode}${kernel ? `, ${kernel}` : ''}`);
      }
      for (const e of here) if (!consumed.has(e)) pending.push(e);
      slots.push({ week, slot, at: iso(at), offsetMs, events, tick: outcome(tickRun) });
    }

    // the week's end: status as a monitoring check runs it, the root's bytes, the server's log
    const lastSlot = (week + 1) * SLOTS_PER_WEEK - 1;
    const s = await status(
      week,
      SLOTS_PER_WEEK - 1,
      weekStart + WEEK - 60_000 + (offsets.get(lastSlot) ?? 0),
    );
    const requests = await drainRequests();
    const record: WeekRecord = {
      week: week + 1,
      start: iso(weekStart),
      version: version.label,
      bytes: bytesByKind(o.root),
      portalFetched: lastFetched,
      statusExit: s.exit,
      statusProblems: s.problems,
      requests,
      simwebPeakMiB: o.sim.sampler.processes()[0]?.peakMiB ?? 0,
      logBytes: ['snapshot', 'tick', 'expand'].reduce(
        (sum, c) => sum + logOffset(logFile(c)),
        logOffset(cronOutput),
      ),
    };
    weeks.push(record);
    await appendFile(join(o.out, 'weeks.jsonl'), `${JSON.stringify(record)}\n`);
    await appendFile(
      join(o.out, 'runs.jsonl'),
      runs
        .filter((r) => r.week === week)
        .map((r) => `${JSON.stringify(r)}\n`)
        .join(''),
    );
    const weekly = runs.find((r) => r.week === week && r.command === 'snapshot');
    o.say(
      `  weekly: ${weekly?.signal ?? `exit ${weekly?.exitCode}`}, crawl ${((weekly?.crawlMs ?? 0) / 1000).toFixed(1)} s, ` +
        `publish ${((weekly?.publishMs ?? 0) / 1000).toFixed(1)} s; status exit ${s.exit}` +
        `${s.problems.length ? ` (${s.problems.join('; ')})` : ''}; ` +
        `${FILE_KINDS.map((k) => `${k} ${(record.bytes[k] / 2 ** 20).toFixed(1)}`).join(', ')} MiB`,
    );
  }
  // the next Monday's CI build: the site week by week, up to the last snapshot the year published
  await buildPortal(o.weeks, 0, false);
  if (portalStale) await buildPortal(o.weeks, 0, false);
  writeFileSync(
    join(o.out, 'answered.txt'),
    [...answered]
      .sort()
      .map(([url, at]) => `${url} ${iso(at)}`)
      .join('\n'),
  );
  return {
    runs,
    slots,
    weeks,
    answered,
    manualSteps: [],
    actedAt,
    snapshotsUrl: snapshotsServer.url,
    pagesUrl: pagesServer.url,
    pages,
    kernel,
    outagePld,
    baselineBytes,
    stopServers: async () => {
      await snapshotsServer.close();
      await pagesServer.close();
    },
  };
}
