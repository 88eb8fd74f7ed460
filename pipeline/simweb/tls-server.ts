/**
 * The TLS port of the simulated Web: one port for every host name, a certificate per name (SNI)
 * from the test CA, generated on first use and cached (about 5 ms each; one certificate naming
 * every host would cost seconds at start and tens of KiB in every handshake). The hosts of
 * tls-lab.ts get their broken certificate instead, or no answer at all.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { ObservatoryError } from '../core/index.ts';
import {
  type CertificateRequest,
  createCertificateAuthority,
  type KeyAndCertificate,
} from './certificates.ts';
import { TLS_TROUBLE_HOSTS, WRONG_HOST_NAME } from './tls-lab.ts';

const DAY = 86_400_000;
/** OpenSSL's security level that lets a server load and use a 1024-bit RSA key. */
const WEAK_LEVEL = 'DEFAULT@SECLEVEL=0';

export interface TlsEndpoint {
  readonly port: number;
  /** The test CA's certificate (PEM), for the crawler's `--ca-file`. */
  readonly caPem: string;
  close(): Promise<void>;
}

/**
 * Serves `handler` over TLS on 127.0.0.1:`port`. `now` is real time (epoch ms): TLS clients check
 * validity against their own clock, not the simulated Web's virtual one.
 */
export async function startTlsEndpoint(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  now: number,
): Promise<TlsEndpoint> {
  const ca = await createCertificateAuthority(now);
  const valid = (names: string[]): CertificateRequest => ({
    names,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 365 * DAY),
  });
  const certificateFor = (name: string): Promise<KeyAndCertificate> => {
    const trouble = TLS_TROUBLE_HOSTS.get(name);
    if (trouble === 'expired')
      return ca.issue({ names: [name], notBefore: new Date(now - 30 * DAY), notAfter: new Date(now - DAY) });
    if (trouble === 'wrong-host') return ca.issue(valid([WRONG_HOST_NAME]));
    if (trouble === 'self-signed') return ca.selfSigned(valid([name]));
    if (trouble === 'weak-key') return ca.weakKey(valid([name]));
    return ca.issue(valid([name]));
  };
  const contexts = new Map<string, Promise<SecureContext>>();
  const contextFor = (name: string) => {
    let context = contexts.get(name);
    if (!context) {
      // the server must be let to load the weak key its client is to refuse
      const level = TLS_TROUBLE_HOSTS.get(name) === 'weak-key' ? { ciphers: WEAK_LEVEL } : {};
      context = certificateFor(name).then((kc) => createSecureContext({ ...kc, ...level }));
      contexts.set(name, context);
    }
    return context;
  };
  // without SNI (an IP address in the URL) the client gets a certificate for the loopback names
  const fallback = await ca.issue(valid(['localhost', '127.0.0.1']));
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    {
      ...fallback,
      // what the server accepts to use, not what clients accept: the weak-key host needs level 0
      ciphers: WEAK_LEVEL,
      keepAliveTimeout: 30_000,
      requestTimeout: 0,
      // a stalled handshake must outlast any client's patience, not end after Node's default 120 s
      handshakeTimeout: DAY,
      SNICallback: (servername, done) => {
        const name = servername.toLowerCase();
        if (TLS_TROUBLE_HOSTS.get(name) === 'stall') return;
        contextFor(name).then(
          (context) => done(null, context),
          (error: Error) => done(error),
        );
      },
    },
    handler,
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(
        new ObservatoryError('io', `simweb: cannot listen on 127.0.0.1:${port} (TLS): ${e.message}`, {
          cause: e,
        }),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    caPem: ca.certPem,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // stalled handshakes are no HTTP connections: closeAllConnections would not see them
        for (const socket of sockets) socket.destroy();
      }),
  };
}
