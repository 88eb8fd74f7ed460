import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream';
import { byteRange } from './byte-range.ts';

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
  // the SQL console: browsers run module scripts only with a JavaScript type, and compile
  // WebAssembly as it streams in only with application/wasm
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  // the Replay page's archive (ReplayWeb.page reads it by ranges, whatever its type)
  '.wacz': 'application/wacz',
};

/**
 * Sent with every answer, so that query engines in a page of another origin (DuckDB-WASM) may read
 * the files and the headers a ranged read needs.
 */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Content-Range, Accept-Ranges, Content-Length, ETag',
} as const;

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

export interface FoundFile {
  readonly path: string;
  readonly size: number;
  readonly mtime: Date;
}

/**
 * The file or folder at `path` if it really lies inside `root` once symbolic links are followed
 * (a link inside the site to a file outside it is not served), else null.
 */
async function fileAt(root: string, path: string): Promise<FoundFile | 'directory' | null> {
  try {
    const real = await realpath(path);
    const realRoot = await realpath(root);
    if (real !== realRoot && !real.startsWith(realRoot + sep)) return null;
    const s = await stat(real);
    if (s.isDirectory()) return 'directory';
    return { path: real, size: s.size, mtime: s.mtime };
  } catch {
    return null;
  }
}

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...CORS, 'content-type': 'text/plain; charset=utf-8', ...headers }).end(text);
}

/** The URL path of a request as sent and decoded, or null when it is malformed. */
function requestPath(req: IncomingMessage): { raw: string; decoded: string } | null {
  try {
    const raw = new URL(req.url ?? '/', 'http://localhost').pathname;
    return { raw, decoded: decodeURIComponent(raw) };
  } catch {
    return null;
  }
}

/** Whether an `If-None-Match` list names `etag` (weak comparison, as RFC 9110 asks for GET). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || strip(tag) === etag);
}

/** Answers with a file: whole, one byte range (206), 416 outside it, or 304 when the client's copy is current. */
export function sendFile(req: IncomingMessage, res: ServerResponse, file: FoundFile, status: number): void {
  // size and modification time change whenever a rebuild replaces a file: a validator without reading it
  const etag = `"${file.size.toString(16)}-${file.mtime.getTime().toString(16)}"`;
  const lastModified = file.mtime.toUTCString();
  const headers = {
    ...CORS,
    'accept-ranges': 'bytes',
    'content-type': TYPES[extname(file.path)] ?? 'application/octet-stream',
    etag,
    'last-modified': lastModified,
  };
  if (status === 200 && matchesEtag(req.headers['if-none-match'], etag))
    return void res.writeHead(304, headers).end();
  // If-Range: a range of a file that changed since the client's validator would mix two versions
  const ifRange = req.headers['if-range'];
  const current = ifRange === undefined || ifRange === etag || ifRange === lastModified;
  const range = status === 200 && current ? byteRange(req.headers.range, file.size) : 'whole';
  if (range === 'unsatisfiable')
    return void res
      .writeHead(416, { ...headers, 'content-range': `bytes */${file.size}`, 'content-length': '0' })
      .end();
  const [first, last] = range === 'whole' ? [0, file.size - 1] : [range.start, range.end];
  res.writeHead(range === 'whole' ? status : 206, {
    ...headers,
    'content-length': String(last - first + 1),
    ...(range === 'whole' ? {} : { 'content-range': `bytes ${first}-${last}/${file.size}` }),
  });
  if (req.method === 'HEAD' || file.size === 0) return void res.end();
  // a client that hung up while the file was looked up (a range reader moving on, a page closed):
  // pipeline throws at once on a destroyed response, and in this async handler that is an
  // unhandled rejection, which ends the server
  if (res.destroyed) return;
  // pipeline, not pipe: a client that hangs up mid-file (as range readers do) or a file replaced by a
  // rebuild while it is read ends this response instead of leaking the stream or crashing the server
  pipeline(createReadStream(file.path, { start: first, end: last }), res, () => {});
}

/**
 * Serves a built portal on 127.0.0.1 (GET and HEAD, `index.html` for folders, `/x` -> `/x/`, the
 * site's 404 page), with single byte ranges, ETags and CORS, so that DuckDB (httpfs, WASM) and
 * pyarrow read the published Parquet in place: what `npm start` ends with, and what the browser
 * tests load. Nothing outside `dir` is served, through `..` or a symbolic link.
 */
export function servePortal(options: ServeOptions): Promise<PortalServer> {
  const root = resolve(options.dir);
  const base = options.basePath ?? '/';
  const server = createServer(async (req, res) => {
    if (req.method === 'OPTIONS')
      // CORS preflight: a Range header makes a cross-origin read "non-simple"
      return void res
        .writeHead(204, {
          ...CORS,
          'access-control-allow-methods': 'GET, HEAD, OPTIONS',
          'access-control-allow-headers': 'Range, If-None-Match, If-Range',
          'access-control-max-age': '86400',
        })
        .end();
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD, OPTIONS' });
    const target = requestPath(req);
    if (target === null) return send(res, 400, 'malformed request path\n');
    const path = target.decoded;
    if (!path.startsWith(base)) return send(res, 404, 'not found\n');
    const local = resolve(root, `.${sep}${path.slice(base.length)}`);
    if (local !== root && !local.startsWith(root + sep)) return send(res, 404, 'not found\n');
    let found = await fileAt(root, local);
    if (found === 'directory') {
      // one leading slash: `/.//snapshots` normalises to `//snapshots`, which as a Location is another host
      if (!path.endsWith('/')) return send(res, 301, '', { location: `/${target.raw.replace(/^\/+/, '')}/` });
      found = await fileAt(root, join(local, 'index.html'));
    }
    let status = 200;
    if (found === null || found === 'directory') {
      status = 404;
      found = await fileAt(root, join(root, '404.html'));
      if (found === null || found === 'directory') return send(res, 404, 'not found\n');
    }
    sendFile(req, res, found, status);
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
