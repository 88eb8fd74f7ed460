/**
 * Test helper: requests a simulated-Web URL over real HTTP to 127.0.0.1, with the URL's host in
 * the Host header (what the crawler's `--resolve '*=127.0.0.1:PORT'` does).
 */
import { get as httpsGet } from 'node:https';
import { request } from 'undici';
import type { SimWeb } from '../../pipeline/simweb/index.ts';

export interface SimResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** GET (no redirect following, no decompression) with a bounded wait. */
export async function simGet(
  sim: SimWeb,
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<SimResponse> {
  const u = new URL(url);
  const res = await request(`${sim.origin}${u.pathname}${u.search}`, {
    headers: { host: u.host, 'user-agent': 'LinkedDataObservatory-test', ...headers },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  return { status: res.statusCode, headers: flat, body };
}

/**
 * GET over the simulated Web's TLS port, with the URL's host as SNI and Host header, trusting
 * only `ca` (default: the Web's test CA). Rejects with the TLS error when the certificate fails.
 */
export function simGetTls(
  sim: SimWeb,
  url: string,
  headers: Record<string, string> = {},
  ca: string | undefined = sim.caPem ?? undefined,
): Promise<SimResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpsGet(
      {
        host: '127.0.0.1',
        port: sim.tlsPort ?? undefined,
        path: `${u.pathname}${u.search}`,
        servername: u.hostname,
        headers: { host: u.host, 'user-agent': 'LinkedDataObservatory-test', ...headers },
        ca,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const flat: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks) });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}
