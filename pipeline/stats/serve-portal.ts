import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.jsonld': 'application/ld+json',
  '.ttl': 'text/turtle; charset=utf-8',
  '.gz': 'application/gzip',
  '.parquet': 'application/vnd.apache.parquet',
  '.sql': 'text/plain; charset=utf-8',
};

/** A running portal server. */
export interface PortalServer {
  /** The portal's address, e.g. `http://127.0.0.1:41234/`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Options of `servePortal`; `dir` is a built site (buildPortal's `out`). */
export interface ServeOptions {
  readonly dir: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  readonly port?: number;
  /** URL path the site is mounted at (the path of its base URL), `/` by default. */
  readonly basePath?: string;
}

async function fileAt(path: string): Promise<{ path: string; size: number } | 'directory' | null> {
  try {
    const s = await stat(path);
    if (s.isDirectory()) return 'directory';
    return { path, size: s.size };
  } catch {
    return null;
  }
}

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(text);
}

/**
 * Serves a built portal on 127.0.0.1 (GET and HEAD, `index.html` for folders, `/x` -> `/x/`,
 * the site's 404 page): what `npm start` ends with, and what the browser tests load.
 */
export function servePortal(options: ServeOptions): Promise<PortalServer> {
  const root = resolve(options.dir);
  const base = options.basePath ?? '/';
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (!path.startsWith(base)) return send(res, 404, 'not found\n');
    const local = resolve(root, `.${sep}${path.slice(base.length)}`);
    if (local !== root && !local.startsWith(root + sep)) return send(res, 404, 'not found\n');
    let found = await fileAt(local);
    if (found === 'directory') {
      if (!path.endsWith('/')) return send(res, 301, '', { location: `${path}/` });
      found = await fileAt(join(local, 'index.html'));
    }
    let status = 200;
    if (found === null || found === 'directory') {
      status = 404;
      found = await fileAt(join(root, '404.html'));
      if (found === null || found === 'directory') return send(res, 404, 'not found\n');
    }
    res.writeHead(status, {
      'content-type': TYPES[extname(found.path)] ?? 'application/octet-stream',
      'content-length': String(found.size),
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(found.path).pipe(res);
  });
  return new Promise((done) =>
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      done({
        url: `http://127.0.0.1:${port}${base}`,
        close: () =>
          new Promise((closed) => {
            server.closeAllConnections();
            server.close(() => closed());
          }),
      });
    }),
  );
}
