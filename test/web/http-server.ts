import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CrawlConfig, crawlConfig, payLevelDomain } from '../../pipeline/core/index.ts';

/** One request as the server saw it: when it arrived (performance.now()), for which host. */
export interface Seen {
  readonly host: string;
  readonly pld: string;
  readonly path: string;
  readonly at: number;
  readonly headers: IncomingHttpHeaders;
}

export interface TestServer {
  readonly port: number;
  readonly seen: Seen[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request it gets before handling it. */
export async function startServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    seen.push({
      host,
      pld: payLevelDomain(host),
      path: req.url ?? '',
      at: performance.now(),
      headers: req.headers,
    });
    handle(req, res);
  });
  server.keepAliveTimeout = 2000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A config that routes every host to the test server (the way the simulated Web is reached). */
export function configFor(port: number, overrides: Partial<CrawlConfig> = {}): CrawlConfig {
  return crawlConfig({
    delayMs: 0,
    timeoutMs: 3000,
    allowPrivate: true,
    resolve: [{ host: '*', address: '127.0.0.1', port }],
    ...overrides,
  });
}

/** The smallest gap between consecutive request arrivals per PLD, and which PLD it was at. */
export function smallestGaps(seen: readonly Seen[]): Map<string, number> {
  const last = new Map<string, number>();
  const gaps = new Map<string, number>();
  for (const s of [...seen].sort((a, b) => a.at - b.at)) {
    const before = last.get(s.pld);
    if (before !== undefined)
      gaps.set(s.pld, Math.min(gaps.get(s.pld) ?? Number.POSITIVE_INFINITY, s.at - before));
    last.set(s.pld, s.at);
  }
  return gaps;
}
