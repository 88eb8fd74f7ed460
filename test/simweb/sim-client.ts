/**
 * Test helper: requests a simulated-Web URL over real HTTP to 127.0.0.1, with the URL's host in
 * the Host header (what the crawler's `--resolve '*=127.0.0.1:PORT'` does).
 */
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
