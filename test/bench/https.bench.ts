/**
 * What HTTPS costs the simulated Web: start-up with and without `https`, the test CA's
 * certificate generation (per host on demand, against one certificate naming every host), and
 * small responses per second over TLS against plain HTTP from a server in its own process.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { Pool } from 'undici';
import { createCertificateAuthority } from '../../pipeline/simweb/certificates.ts';
import { docAddress } from '../../pipeline/simweb/documents.ts';
import { generateWeb, startSimWeb } from '../../pipeline/simweb/index.ts';
import { startSimWebProcess } from '../commands/cli-process.ts';

const SHAPE = { seed: 1, docs: 5000, plds: 300, latencyScale: 0, faults: 0 } as const;
const STARTS = 5;
const CERTS = 200;
const DURATION_MS = 5000;
const CONNECTIONS = 64;
const DAY = 86_400_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function startMs(https: boolean): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t = performance.now();
    const sim = await startSimWeb({ ...SHAPE, https });
    times.push(performance.now() - t);
    await sim.close();
  }
  return times;
}

async function certificates(): Promise<Record<string, number>> {
  const now = Date.now();
  let t = performance.now();
  const ca = await createCertificateAuthority(now);
  const caMs = performance.now() - t;
  const request = (names: string[]) => ({
    names,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + DAY),
  });
  const hosts = [...generateWeb(SHAPE).hostIndex.keys()];
  t = performance.now();
  const issued = [];
  for (let i = 0; i < CERTS; i++) issued.push(await ca.issue(request([hosts[i % hosts.length]])));
  const perCertMs = (performance.now() - t) / CERTS;
  t = performance.now();
  for (const kc of issued) createSecureContext(kc);
  const perContextMs = (performance.now() - t) / CERTS;
  t = performance.now();
  const all = await ca.issue(request(hosts));
  const allNamesMs = performance.now() - t;
  return {
    caMs,
    perCertMs,
    perContextMs,
    hosts: hosts.length,
    allNamesMs,
    allNamesKiB: all.cert.length / 1024,
  };
}

async function rps(pool: Pool, urls: readonly URL[]): Promise<number> {
  let done = 0;
  const end = performance.now() + DURATION_MS;
  const worker = async (w: number) => {
    for (let i = w; performance.now() < end; i += CONNECTIONS) {
      const u = urls[i % urls.length];
      const res = await pool.request({ path: u.pathname, method: 'GET', headers: { host: u.host } });
      await res.body.dump();
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  return done / ((performance.now() - start) / 1000);
}

async function throughput(): Promise<{ http: number; https: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'https-bench-'));
  const caFile = join(dir, 'ca.pem');
  const server = await startSimWebProcess([
    '--port',
    '0',
    '--tls-port',
    '0',
    '--https',
    '--ca-out',
    caFile,
    '--latency-scale',
    '0',
    '--faults',
    '0',
    '--seeds-out',
    join(dir, 'core.txt'),
  ]);
  try {
    const tlsPort = Number(/HTTPS on 127\.0\.0\.1:(\d+)/.exec(server.banner)?.[1]);
    const web = generateWeb({ ...SHAPE, https: true });
    // undici reconnects when a request's host differs from its connection's server name, so both
    // sides load the documents of one host: the largest PLD on one host that serves both schemes
    const pld = web.plds
      .filter((p) => p.kind === 'data' && !p.httpsRedirect && p.hosts.length === 1)
      .sort((a, b) => b.docCount - a.docCount)[0];
    const urls = Array.from(
      { length: pld.docCount },
      (_, i) => new URL(docAddress(web, pld.docStart + i).docUrl),
    );
    const plain = new Pool(`http://127.0.0.1:${server.port}`, { connections: CONNECTIONS });
    const ca = await readFile(caFile, 'utf8');
    const secure = new Pool(`https://127.0.0.1:${tlsPort}`, {
      connections: CONNECTIONS,
      connect: { ca, servername: pld.hosts[0] },
    });
    const http = await rps(plain, urls);
    const https = await rps(secure, urls);
    await Promise.all([plain.close(), secure.close()]);
    return { http, https };
  } finally {
    server.stop();
  }
}

export default async function (): Promise<void> {
  const [first] = await startMs(true);
  const plain = await startMs(false);
  const tls = await startMs(true);
  const c = await certificates();
  const load = await throughput();
  const f = (x: number) => x.toFixed(1);
  process.stdout.write(
    `| measure | value |\n| --- | --- |\n` +
      `| start, 5,000 documents, HTTP only (median of ${STARTS}) | ${f(median(plain))} ms |\n` +
      `| start with https (median of ${STARTS}; CA and fallback certificate) | ${f(median(tls))} ms |\n` +
      `| first start with https (loading the X.509 library too) | ${f(first)} ms |\n` +
      `| test CA (ECDSA P-256 key pair, self-signed) | ${f(c.caMs)} ms |\n` +
      `| one host certificate (mean of ${CERTS}) | ${f(c.perCertMs)} ms |\n` +
      `| its TLS context (createSecureContext) | ${f(c.perContextMs)} ms |\n` +
      `| one certificate naming all ${c.hosts} hosts | ${f(c.allNamesMs)} ms, ${f(c.allNamesKiB)} KiB |\n` +
      `| small responses/s, HTTP, ${CONNECTIONS} keep-alive connections | ${Math.round(load.http)} |\n` +
      `| small responses/s, HTTPS, same | ${Math.round(load.https)} (${f(load.https / load.http)}x) |\n` +
      `| load average at the end | ${(await import('node:os'))
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} |\n`,
  );
}
