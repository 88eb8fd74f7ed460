import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The host the hostile documents live on (routed to this server with a --resolve rule). */
export const HOSTILE_HOST = 'hostile-lod.example';
/** Markup in a crawled IRI that must show up as text on the portal, never as markup. */
export const HOSTILE_CLASS = `http://${HOSTILE_HOST}/C?"><svg/onload=alert(1)><script>alert(2)</script>`;
export const HOSTILE_URLS = [`http://${HOSTILE_HOST}/doc`, `http://${HOSTILE_HOST}/gone`];

/**
 * A publisher of hostile strings on 127.0.0.1: a JSON-LD document typed with a class whose IRI
 * carries markup and a literal with a script, and a 404.
 */
export async function startHostileSite(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url === '/doc') {
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      res.end(
        JSON.stringify({
          '@id': HOSTILE_URLS[0],
          'http://www.w3.org/1999/02/22-rdf-syntax-ns#type': { '@id': HOSTILE_CLASS },
          'http://purl.org/dc/terms/title': '<script>alert("literal")</script>',
          'http://xmlns.com/foaf/0.1/page': { '@id': 'http://hostile-lod.example/x?<b>bold</b>' },
        }),
      );
    } else if (req.url === '/robots.txt') {
      res.writeHead(404).end();
    } else {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<p>gone</p>');
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port };
}
