/**
 * The control endpoints under /__sim/ (on any host): the virtual clock, the ground truth, the
 * request log, the scenario catalogue, the core seed list and a summary. Never logged as crawl traffic.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ManualClock } from '../core/index.ts';
import type { Outages } from './outages.ts';
import type { RequestLog } from './request-log.ts';
import { SCENARIOS } from './scenarios.ts';
import { truthRecords } from './truth.ts';
import type { GeneratedWeb } from './web-shape.ts';

export const CONTROL_PREFIX = '/__sim/';

export interface ControlContext {
  readonly web: GeneratedWeb;
  readonly clock: ManualClock;
  readonly log: RequestLog;
  readonly seeds: readonly string[];
  readonly summary: () => unknown;
  readonly pldHabits: () => unknown;
  readonly outages: Outages;
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(value)}\n`);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString() || '{}');
}

function clockState(clock: ManualClock) {
  return { now: new Date(clock.now()).toISOString(), ms: clock.now() };
}

/** Writes JSON Lines without holding them all (the truth of 100,000 documents is large). */
async function streamLines(res: ServerResponse, lines: Iterable<unknown>): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  let buffer = '';
  for (const line of lines) {
    buffer += `${JSON.stringify(line)}\n`;
    if (buffer.length > 65_536) {
      if (!res.write(buffer)) await new Promise((r) => res.once('drain', r));
      buffer = '';
    }
  }
  res.end(buffer);
}

function instant(text: string | null, fallback: number): number | null {
  if (text === null) return fallback;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

/** Answers a request under /__sim/. */
export async function handleControl(
  ctx: ControlContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim');
  const what = url.pathname.slice(CONTROL_PREFIX.length);
  const method = req.method ?? 'GET';
  if (what === 'clock' && method === 'GET') return json(res, 200, clockState(ctx.clock));
  if (what === 'clock' && method === 'POST') {
    let body: { now?: unknown; advance?: unknown };
    try {
      body = (await readJson(req)) as typeof body;
    } catch {
      return json(res, 400, { error: 'expected a JSON body {"now": ISO} or {"advance": ms}' });
    }
    const now = typeof body.now === 'string' ? Date.parse(body.now) : Number.NaN;
    if (!Number.isNaN(now)) ctx.clock.set(now);
    else if (typeof body.advance === 'number' && Number.isFinite(body.advance))
      ctx.clock.advance(body.advance);
    else return json(res, 400, { error: 'expected {"now": "2026-01-05T00:00:00Z"} or {"advance": 3600000}' });
    return json(res, 200, clockState(ctx.clock));
  }
  if (what === 'truth' && method === 'GET') {
    const at = instant(url.searchParams.get('at'), ctx.clock.now());
    if (at === null) return json(res, 400, { error: 'at: expected an ISO 8601 date-time' });
    return streamLines(res, truthRecords(ctx.web, at));
  }
  if (what === 'log' && method === 'GET')
    return streamLines(res, ctx.log.entries(Number(url.searchParams.get('since') ?? 0)));
  if (what === 'log' && method === 'DELETE') {
    ctx.log.clear();
    return json(res, 200, { cleared: true });
  }
  if (what === 'scenarios' && method === 'GET') return json(res, 200, SCENARIOS);
  if (what === 'seeds' && method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${ctx.seeds.join('\n')}\n`);
    return;
  }
  if (what === 'info' && method === 'GET') return json(res, 200, ctx.summary());
  if (what === 'plds' && method === 'GET') return json(res, 200, ctx.pldHabits());
  if (what === 'outages' && method === 'GET') return json(res, 200, { unreachable: ctx.outages.list() });
  if (what === 'outages' && method === 'POST') {
    const expected =
      'expected a JSON body {"unreachable": ["example.org", ...]} (an empty list ends every outage)';
    let body: { unreachable?: unknown };
    try {
      body = (await readJson(req)) as typeof body;
    } catch {
      return json(res, 400, { error: expected });
    }
    const plds = body.unreachable;
    if (!Array.isArray(plds) || !plds.every((p) => typeof p === 'string' && p !== ''))
      return json(res, 400, { error: expected });
    ctx.outages.set(plds);
    return json(res, 200, { unreachable: ctx.outages.list() });
  }
  json(res, 404, { error: `unknown control endpoint ${method} ${url.pathname}` });
}
