import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type PeerCertificate, connect as tlsConnect } from 'node:tls';
import { docAddress } from '../../pipeline/simweb/documents.ts';
import {
  generateWeb,
  HTTPS_REDIRECT_SHARE,
  type SimWeb,
  startSimWeb,
  TLS_OK_HOST,
  TLS_SCENARIOS,
  TLS_TROUBLE_HOSTS,
} from '../../pipeline/simweb/index.ts';
import { simGet, simGetTls } from './sim-client.ts';

const SHAPE = { seed: 5, docs: 1500, plds: 80, latencyScale: 0 } as const;

let sim: SimWeb;
before(async () => {
  sim = await startSimWeb({ ...SHAPE, https: true });
});
after(() => sim.close());

/** The certificate the TLS port shows for `servername`, without checking it. */
function peerCertificate(servername: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      { host: '127.0.0.1', port: sim.tlsPort!, servername, rejectUnauthorized: false },
      () => {
        resolve(socket.getPeerCertificate());
        socket.destroy();
      },
    );
    socket.once('error', reject);
  });
}

test('without https the Web does no TLS work and no PLD redirects to https', async () => {
  const plain = await startSimWeb(SHAPE);
  try {
    assert.equal(plain.tlsPort, null);
    assert.equal(plain.caPem, null);
    assert.deepEqual(plain.resolveRules, [plain.resolveRule]);
    assert.equal(plain.summary().httpsRedirectPlds, 0);
    const dbpedia = docAddress(plain.web, plain.web.hostIndex.get('dbpedia.org')!.docStart).docUrl;
    assert.equal((await simGet(plain, dbpedia)).status, 200);
  } finally {
    await plain.close();
  }
});

test('https routes port 443 to the TLS port and serves every host with a certificate from the test CA', async () => {
  assert.deepEqual(sim.resolveRules, [`*:443=127.0.0.1:${sim.tlsPort}`, sim.resolveRule]);
  const ca = new X509Certificate(sim.caPem!);
  assert.ok(ca.ca);
  for (const host of ['dbpedia.org', 'de.dbpedia.org', TLS_OK_HOST]) {
    const cert = new X509Certificate((await peerCertificate(host)).raw);
    assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), host);
    assert.equal(cert.checkHost(host), host);
    assert.ok(new Date(cert.validTo).getTime() > Date.now());
  }
});

test('a document served over TLS has the same status, headers and bytes as over HTTP', async () => {
  const p = sim.web.plds.find((x) => x.kind === 'data' && !x.httpsRedirect && x.style === 'direct')!;
  const url = docAddress(sim.web, p.docStart).docUrl;
  const plain = await simGet(sim, url);
  const secure = await simGetTls(sim, url.replace(/^http:/, 'https:'));
  assert.equal(plain.status, 200);
  assert.equal(secure.status, 200);
  assert.deepEqual(secure.body, plain.body);
  assert.equal(secure.headers['content-type'], plain.headers['content-type']);
  assert.equal(secure.headers.etag, plain.headers.etag);
});

test('http->https PLDs (dbpedia.org, wikidata.org and a seeded share) answer 301 to the same https URL, robots.txt too', async () => {
  const web = sim.web;
  const redirecting = web.plds.filter((p) => p.httpsRedirect);
  assert.ok(redirecting.every((p) => p.kind === 'data'));
  for (const name of ['dbpedia.org', 'wikidata.org'])
    assert.ok(
      redirecting.some((p) => p.domain === name),
      name,
    );
  const data = web.plds.filter((p) => p.kind === 'data').length;
  assert.ok(
    redirecting.length > 0.5 * HTTPS_REDIRECT_SHARE * data &&
      redirecting.length < 2 * HTTPS_REDIRECT_SHARE * data,
  );
  // deterministic from the seed, and the same as pldHabits and the summary report
  const again = generateWeb({ ...SHAPE, https: true })
    .plds.filter((p) => p.httpsRedirect)
    .map((p) => p.domain);
  assert.deepEqual(
    again,
    redirecting.map((p) => p.domain),
  );
  assert.deepEqual(
    sim
      .pldHabits()
      .filter((h) => h.httpsRedirect)
      .map((h) => h.pld),
    again,
  );
  assert.equal(sim.summary().httpsRedirectPlds, redirecting.length);
  sim.clearRequestLog();
  for (const p of redirecting.slice(0, 5)) {
    const url = new URL(docAddress(web, p.docStart + p.docCount - 1).docUrl);
    url.search = '?q=1';
    for (const target of [url.href, `http://${url.host}/robots.txt`]) {
      const res = await simGet(sim, target);
      assert.equal(res.status, 301, target);
      assert.equal(res.headers.location, target.replace(/^http:/, 'https:'));
    }
  }
  assert.ok(sim.requestLog().every((e) => e.scheme === 'http'));
  const record = sim.truth().find((r) => r.pld === 'dbpedia.org' && r.kind === 'document' && r.rdf)!;
  assert.match(record.finalUrl!, /^https:\/\/[^/]*dbpedia\.org\/data\//);
  assert.equal(record.redirects, 2);
  const https = await simGetTls(sim, record.uri.replace(/^http:/, 'https:'));
  assert.equal(https.status, 303);
  assert.ok(sim.requestLog().some((e) => e.scheme === 'https' && e.pld === 'dbpedia.org'));
});

test('the broken-TLS hosts show their trouble: expired, wrong host name, self-signed, weak key, stalled handshake', async () => {
  const ca = new X509Certificate(sim.caPem!);
  const host = (t: string) => [...TLS_TROUBLE_HOSTS].find(([, trouble]) => trouble === t)![0];
  const expired = new X509Certificate((await peerCertificate(host('expired'))).raw);
  assert.ok(expired.checkIssued(ca) && new Date(expired.validTo).getTime() < Date.now());
  const wrong = new X509Certificate((await peerCertificate(host('wrong-host'))).raw);
  assert.ok(wrong.checkIssued(ca) && wrong.checkHost(host('wrong-host')) === undefined);
  const self = new X509Certificate((await peerCertificate(host('self-signed'))).raw);
  assert.ok(self.issuer === self.subject && self.verify(self.publicKey) && !self.verify(ca.publicKey));
  const weak = new X509Certificate((await peerCertificate(host('weak-key'))).raw);
  assert.ok(weak.checkIssued(ca) && weak.publicKey.asymmetricKeyDetails?.modulusLength === 1024);
  for (const [h, trouble] of TLS_TROUBLE_HOSTS) {
    if (trouble === 'stall') continue;
    await assert.rejects(simGetTls(sim, `https://${h}/doc`), (e: NodeJS.ErrnoException) => {
      const expected = {
        expired: 'CERT_HAS_EXPIRED',
        'wrong-host': 'ERR_TLS_CERT_ALTNAME_INVALID',
        'self-signed': 'DEPTH_ZERO_SELF_SIGNED_CERT',
        // OpenSSL's EE_KEY_TOO_SMALL, a verify result Node 24 has no name for
        'weak-key': 'UNSPECIFIED',
      }[trouble];
      return e.code === expected;
    });
  }
  // the stalled host takes the TCP connection and never sends a byte of the handshake
  const stalled = await new Promise<{ secure: boolean; bytes: number }>((resolve) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: sim.tlsPort!,
      servername: host('stall'),
      rejectUnauthorized: false,
    });
    let bytes = 0;
    socket.on('secureConnect', () => resolve({ secure: true, bytes }));
    socket.on('error', () => resolve({ secure: false, bytes }));
    socket.once('connect', () => {
      setTimeout(() => {
        bytes = socket.bytesRead;
        resolve({ secure: false, bytes });
        socket.destroy();
      }, 500);
    });
  });
  assert.deepEqual(stalled, { secure: false, bytes: 0 });
});

test('the TLS scenarios are served as catalogued over TLS', async () => {
  const ok = TLS_SCENARIOS['tls-ok'];
  const res = await simGetTls(sim, ok.url);
  assert.equal(res.status, 200);
  assert.match(res.body.toString(), /@prefix|<http/);
  const upgrade = TLS_SCENARIOS['tls-upgrade'];
  const first = await simGet(sim, upgrade.url);
  assert.equal(first.status, 301);
  assert.equal(first.headers.location, upgrade.expect.finalUrl);
  assert.equal((await simGetTls(sim, upgrade.expect.finalUrl)).status, 200);
  // a client that does not trust the test CA refuses even the valid certificate
  await assert.rejects(simGetTls(sim, ok.url, {}, ''), (e: NodeJS.ErrnoException) =>
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY'].includes(e.code ?? ''),
  );
});

const cli = new URL('../../pipeline/cli.ts', import.meta.url).pathname;

test('observatory simweb --https --ca-out writes the test CA and prints both resolve rules and --ca-file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'simweb-https-'));
  const caFile = join(dir, 'ca.pem');
  const child = spawn(process.execPath, [
    cli,
    'simweb',
    ...['--port', '0', '--tls-port', '0', '--docs', '300', '--plds', '20', '--latency-scale', '0'],
    ...['--https', '--ca-out', caFile, '--seeds-out', join(dir, 'core.txt')],
  ]);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('core seed list')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const tlsPort = /HTTPS on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
  assert.ok(tlsPort, out);
  assert.match(
    out,
    new RegExp(`--resolve '\\*:443=127\\.0\\.0\\.1:${tlsPort}' --resolve '\\*=127\\.0\\.0\\.1:\\d+'`),
  );
  assert.ok(out.includes(`--ca-file ${caFile}`), out);
  assert.ok(new X509Certificate(await readFile(caFile, 'utf8')).ca);
  // a graceful stop is test/commands/simweb.test.ts's to check
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  const refused = spawnSync(process.execPath, [cli, 'simweb', '--port', '0', '--ca-out', caFile], {
    encoding: 'utf8',
  });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /--ca-out: expected --https as well/);
});
