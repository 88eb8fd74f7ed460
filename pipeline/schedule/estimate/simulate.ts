/**
 * A discrete-event replay of the crawl loop (pipeline/crawl/crawl.ts) over known fetch times:
 * `concurrency` fetch slots; a PLD is served only when the gate says it is ready (its delay after
 * the previous document's last answer) and its previous document is processed; among ready PLDs
 * the policy picks (pipeline/crawl/policy.ts); processing queues for the one event loop;
 * breadth-first rounds with the observatory paper's early round end. No I/O, no clock: one run over
 * 100,000 documents takes a fraction of a second.
 */

import type { PolicyName } from '../../core/index.ts';
import { countAtMost } from '../../core/index.ts';
import { compareReady, endsRoundEarly, type ReadyPld } from '../../crawl/index.ts';

/** One PLD's documents in crawl order, with what each costs. */
export interface SimJob {
  readonly pld: string;
  /** The gate's delay for the PLD (ms). */
  readonly delayMs: number;
  /** Round of each document (non-decreasing); all 0 for a URL list. */
  readonly rounds: readonly number[];
  /** How long each document holds a fetch slot (ms). */
  readonly fetchMs: readonly number[];
  /** Whether each document sent a request (a robots.txt refusal does not, so the PLD stays ready). */
  readonly sent: readonly boolean[];
}

export interface SimSettings {
  readonly concurrency: number;
  readonly policy: PolicyName;
  /**
   * The crawler's own work per document after its fetch (parse, graph hash, journal), done one
   * document at a time on its single event loop; the slot and the PLD stay taken until it is done (ms).
   */
  readonly cpuMs?: number;
}

export interface SimResult {
  readonly makespanMs: number;
  /** Sum over documents of the time they held a fetch slot (ms). */
  readonly slotMs: number;
  /** Per job (same order): when its last document ended (ms). */
  readonly finishMs: Float64Array;
}

interface State {
  next: number;
  /** The document in flight. */
  current: number;
  readyAt: number;
  busy: boolean;
  lastServed: number;
}

/** Index past the last document of round <= r. */
function roundEnd(rounds: readonly number[], r: number): number {
  return countAtMost(rounds.length, (i) => rounds[i], r);
}

/** Replays the crawl loop over `jobs`; see the file comment for what it models. */
export function simulateCrawl(jobs: readonly SimJob[], settings: SimSettings): SimResult {
  const n = jobs.length;
  const states: State[] = jobs.map(() => ({
    next: 0,
    current: 0,
    readyAt: 0,
    busy: false,
    lastServed: 0,
  }));
  const finishMs = new Float64Array(n);
  const maxRound = Math.max(0, ...jobs.map((j) => j.rounds.at(-1) ?? 0));
  let round = 0;
  let ends = jobs.map((j) => roundEnd(j.rounds, round));
  let remaining = jobs.reduce((s, j) => s + j.fetchMs.length, 0);
  // events: [time, j] with j a job whose fetch ended, or -1 - j when its processing ended
  const heapT: number[] = [];
  const heapJ: number[] = [];
  const push = (t: number, j: number) => {
    let i = heapT.length;
    heapT.push(t);
    heapJ.push(j);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heapT[p] <= t) break;
      heapT[i] = heapT[p];
      heapJ[i] = heapJ[p];
      i = p;
    }
    heapT[i] = t;
    heapJ[i] = j;
  };
  const pop = (): number => {
    const j = heapJ[0];
    const t = heapT.pop()!;
    const jj = heapJ.pop()!;
    const size = heapT.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const c = l + 1 < size && heapT[l + 1] < heapT[l] ? l + 1 : l;
        if (heapT[c] >= t) break;
        heapT[i] = heapT[c];
        heapJ[i] = heapJ[c];
        i = c;
      }
      heapT[i] = t;
      heapJ[i] = jj;
    }
    return j;
  };
  const queued = (j: number) => ends[j] - states[j].next;
  // what the policy sees of each job, read live: no object made per comparison
  const views: ReadyPld[] = jobs.map((job, j) => ({
    pld: job.pld,
    delayMs: job.delayMs,
    get queued() {
      return queued(j);
    },
    get lastServed() {
      return states[j].lastServed;
    },
  }));
  const better = (a: number, b: number) => compareReady(settings.policy, views[a], views[b]) < 0;
  const advanceRound = () => {
    round++;
    ends = jobs.map((j) => roundEnd(j.rounds, round));
  };
  /** The round-end rule (pipeline/crawl/rules.ts) on the jobs: a URL list's rounds, no budget. */
  const endRoundEarly = (): boolean => {
    let active = 0;
    for (let j = 0; j < n; j++) if (queued(j) > 0) active++;
    const incoming = () => {
      for (let j = 0; j < n; j++) {
        if (queued(j) === 0 && roundEnd(jobs[j].rounds, round + 1) > states[j].next) return true;
      }
      return false;
    };
    const view = {
      round,
      maxRounds: maxRound + 1,
      budgeted: false,
      active,
      slots: settings.concurrency,
      rule: 'observatory' as const,
    };
    return endsRoundEarly(view, incoming);
  };

  const cpuMs = settings.cpuMs ?? 0;
  let cpuFree = 0;
  let now = 0;
  let inflight = 0;
  let serveSeq = 0;
  let slotMs = 0;
  while (remaining > 0 || inflight > 0) {
    // fill: start the best ready PLDs while slots are free
    while (inflight < settings.concurrency) {
      let best = -1;
      for (let j = 0; j < n; j++) {
        const s = states[j];
        if (s.busy || s.readyAt > now || s.next >= ends[j]) continue;
        if (best < 0 || better(j, best)) best = j;
      }
      if (best < 0) break;
      const s = states[best];
      const cost = jobs[best].fetchMs[s.next];
      s.current = s.next++;
      s.busy = true;
      s.lastServed = ++serveSeq;
      slotMs += cost;
      inflight++;
      remaining--;
      push(now + cost, best);
    }
    if (remaining > 0 && inflight === 0) {
      let idle = true;
      for (let j = 0; j < n; j++) if (states[j].next < ends[j]) idle = false;
      if (idle) {
        advanceRound();
        continue;
      }
    }
    if (endRoundEarly()) {
      advanceRound();
      continue;
    }
    // the next moment something changes: a fetch ends, or (with a free slot) a PLD becomes ready
    let until = heapT.length > 0 ? heapT[0] : Number.POSITIVE_INFINITY;
    if (inflight < settings.concurrency) {
      for (let j = 0; j < n; j++) {
        const s = states[j];
        if (!s.busy && s.next < ends[j] && s.readyAt < until) until = s.readyAt;
      }
    }
    if (!Number.isFinite(until)) break;
    now = Math.max(now, until);
    while (heapT.length > 0 && heapT[0] <= now) {
      const event = pop();
      if (event >= 0 && cpuMs > 0) {
        // fetched: the politeness delay runs from now, the processing waits for the event loop
        const s = states[event];
        s.readyAt = jobs[event].sent[s.current] ? now + jobs[event].delayMs : now;
        cpuFree = Math.max(cpuFree, now) + cpuMs;
        push(cpuFree, -1 - event);
        continue;
      }
      const j = event >= 0 ? event : -1 - event;
      const s = states[j];
      s.busy = false;
      inflight--;
      finishMs[j] = now;
      if (event >= 0) s.readyAt = jobs[j].sent[s.current] ? now + jobs[j].delayMs : now;
      else s.readyAt = Math.max(s.readyAt, now);
    }
  }
  return { makespanMs: now, slotMs, finishMs };
}
