/**
 * The HTTP server of the simulated Web: one port, every host by its Host header, and with
 * `https` a TLS port serving the same (tls-server.ts). It adds what the pure routing does not
 * have: the virtual clock, per-PLD service time, the request log, and the misbehaving transports.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  type Clock,
  type ManualClock,
  manualClock,
  ObservatoryError,
  payLevelDomain,
} from '../core/index.ts';
import { CONTROL_PREFIX, handleControl } from './control.ts';
import { coreSeeds } from './links.ts';
import { type SimWebOptions, simWebOptions } from './options.ts';
import { createOutages } from './outages.ts';
import { randomStream } from './random.ts';
import { createRequestLog, type RequestLogEntry } from './request-log.ts';
import { route } from './router.ts';
import { SCENARIOS, type Scenario } from './scenarios.ts';
import { sendReply } from './send.ts';
import { type PldHabits, pldHabits, summarize, type WebSummary } from './summary.ts';
import type { TlsEndpoint } from './tls-server.ts';
import { type TruthRecord, truthRecords } from './truth.ts';
import { type GeneratedWeb, generateWeb } from './web-shape.ts';

export interface SimWeb {
  readonly web: GeneratedWeb;
  readonly port: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** What to give the crawler for HTTP: `*=127.0.0.1:PORT`. */
  readonly resolveRule: string;
  /** The TLS port (null without `https`). */
  readonly tlsPort: number | null;
  /** The test CA's certificate, PEM (null without `https`): the crawler's `caCertificates` / `--ca-file`. */
  readonly caPem: string | null;
  /**
   * Every resolve rule the crawler needs: `resolveRule`, and with `https` first
   * `*:443=127.0.0.1:TLSPORT`, so that https URLs reach the TLS port.
   */
  readonly resolveRules: readonly string[];
  /** The core seed list (vocabularies and example resources of the big datasets). */
  readonly coreSeeds: readonly string[];
  readonly scenarios: Readonly<Record<string, Scenario>>;
  /** The virtual clock the Web's content follows (the given clock when one was passed). */
  readonly clock: Clock;
  /** Writes the core seed list, one URI a line. */
  writeCoreSeeds(file: string): Promise<void>;
  /** Crawl requests so far (control requests excluded), with seq greater than `since`. */
  requestLog(since?: number): RequestLogEntry[];
  clearRequestLog(): void;
  /** Ground truth at `atMs` (default: the virtual clock). */
  truth(atMs?: number): TruthRecord[];
  /** Sets the virtual clock (only when the Web owns its clock). */
  setClock(ms: number): void;
  advanceClock(ms: number): void;
  summary(): WebSummary;
  /** Per PLD: how it uses validators and whether it redirects http to https (ground truth). */
  pldHabits(): PldHabits[];
  /** Makes these PLDs unreachable (their requests logged, then reset unanswered); [] ends every outage. */
  setUnreachable(plds: readonly string[]): void;
  close(): Promise<void>;
}

function ownClock(clock: Clock | null, now: number): ManualClock | null {
  return clock ? null : manualClock(now);
}

/** Generates a Web from the options and serves it on 127.0.0.1. */
export async function startSimWeb(input: Partial<SimWebOptions> = {}): Promise<SimWeb> {
  const options = simWebOptions(input);
  const web = generateWeb(options);
  const own = ownClock(options.clock, options.now);
  const clock: Clock = own ?? options.clock!;
  const settable: ManualClock = own ?? {
    ...clock,
    set: () => {
      throw new ObservatoryError(
        'invalid_input',
        'the simulated Web follows a clock it was given; set that clock instead',
      );
    },
    advance: () => {
      throw new ObservatoryError(
        'invalid_input',
        'the simulated Web follows a clock it was given; advance that clock instead',
      );
    },
  };
  const log = createRequestLog();
  const outages = createOutages();
  const seeds = coreSeeds(web);
  const timers = new Set<NodeJS.Timeout>();
  const jitter = randomStream(web.key, 0x1a7);
  const summary = () => summarize(web);

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const startedAt = performance.timeOrigin + performance.now();
    const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
    const rawUrl = req.url ?? '/';
    if (rawUrl.startsWith(CONTROL_PREFIX)) {
      handleControl(
        { web, clock: settable, log, seeds, summary, pldHabits: () => pldHabits(web), outages },
        req,
        res,
      ).catch((e) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
      return;
    }
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const search = q < 0 ? '' : rawUrl.slice(q);
    const pld = payLevelDomain(host);
    const entry = log.add({
      startedAt,
      virtualAt: clock.now(),
      scheme,
      host,
      pld,
      method: req.method ?? 'GET',
      path: rawUrl,
      userAgent: req.headers['user-agent'] ?? null,
      accept: req.headers.accept ?? null,
      ifNoneMatch: req.headers['if-none-match'] ?? null,
      ifModifiedSince: req.headers['if-modified-since'] ?? null,
    });
    res.on('finish', () => {
      entry.status = res.statusCode;
    });
    // an unreachable site: logged (status null), never answered
    if (outages.has(pld)) {
      req.socket.destroy();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      res.end();
      return;
    }
    const h = req.headers;
    const reply = route(
      web,
      {
        host,
        path,
        search,
        scheme,
        accept: h.accept,
        ifNoneMatch: h['if-none-match'],
        ifModifiedSince: h['if-modified-since'],
      },
      clock.now(),
    );
    const site = web.hostIndex.get(host);
    const service =
      site && options.latencyScale > 0
        ? site.latencyMs * options.latencyScale * (0.5 + jitter.exponential(0.5))
        : 0;
    const wait = service + reply.delayMs;
    if (wait <= 0) return sendReply(req, res, reply, timers);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) sendReply(req, res, reply, timers);
    }, wait);
    timers.add(timer);
  };

  const server = createServer({ keepAliveTimeout: 30_000, requestTimeout: 0 }, serve);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(
        new ObservatoryError('io', `simweb: cannot listen on 127.0.0.1:${options.port}: ${e.message}`, {
          cause: e,
        }),
      ),
    );
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // loaded only when asked for: a Web without https does no TLS work at all
  let tls: TlsEndpoint | null = null;
  try {
    if (options.https) {
      const { startTlsEndpoint } = await import('./tls-server.ts');
      // real time: certificates are checked against the client's clock, not the virtual one
      tls = await startTlsEndpoint(serve, options.tlsPort, Date.now());
    }
  } catch (error) {
    server.close();
    throw error;
  }
  const resolveRule = `*=127.0.0.1:${port}`;
  return {
    web,
    port,
    origin: `http://127.0.0.1:${port}`,
    resolveRule,
    tlsPort: tls?.port ?? null,
    caPem: tls?.caPem ?? null,
    resolveRules: tls ? [`*:443=127.0.0.1:${tls.port}`, resolveRule] : [resolveRule],
    coreSeeds: seeds,
    scenarios: SCENARIOS,
    clock,
    writeCoreSeeds: (file) => writeFile(file, `${seeds.join('\n')}\n`),
    requestLog: (since) => log.entries(since),
    clearRequestLog: () => log.clear(),
    truth: (atMs) => [...truthRecords(web, atMs ?? clock.now())],
    setClock: (ms) => settable.set(ms),
    advanceClock: (ms) => settable.advance(ms),
    summary,
    pldHabits: () => pldHabits(web),
    setUnreachable: (plds) => outages.set(plds),
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all([
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
        tls?.close(),
      ]);
    },
  };
}
