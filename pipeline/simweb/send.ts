/**
 * Puts a Reply on the wire, including the misbehaviours: compression when the client accepts
 * it, hangs, trickles and connection resets. Timers are tracked so that close() ends them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { Reply } from './reply.ts';

/** Interval and chunk size of `trickle`: slow, but done within a few seconds for small bodies. */
export const TRICKLE_INTERVAL_MS = 100;
export const TRICKLE_CHUNK = 64;

function encodingFor(acceptEncoding: string | undefined): 'gzip' | 'br' | 'deflate' | null {
  const a = (acceptEncoding ?? '').toLowerCase();
  if (/\bgzip\b/.test(a)) return 'gzip';
  if (/\bbr\b/.test(a)) return 'br';
  if (/\bdeflate\b/.test(a)) return 'deflate';
  return null;
}

function compressBody(body: Buffer, encoding: 'gzip' | 'br' | 'deflate'): Buffer {
  return encoding === 'gzip'
    ? gzipSync(body)
    : encoding === 'br'
      ? brotliCompressSync(body)
      : deflateSync(body);
}

/** Sends `reply`; `timers` collects pending intervals so the server can stop them. */
export function sendReply(
  req: IncomingMessage,
  res: ServerResponse,
  reply: Reply,
  timers: Set<NodeJS.Timeout>,
): void {
  if (reply.transport === 'hang') return;
  if (reply.transport === 'reset-before-response') {
    req.socket.destroy();
    return;
  }
  const headers: Record<string, string | number> = { ...reply.headers };
  let body = req.method === 'HEAD' || reply.status === 304 ? Buffer.alloc(0) : reply.body();
  const encoding = reply.compress && body.length > 0 ? encodingFor(req.headers['accept-encoding']) : null;
  if (encoding) {
    body = compressBody(body, encoding);
    headers['content-encoding'] = encoding;
    headers.vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
  }
  if (reply.transport === 'hang-after-headers') {
    res.writeHead(reply.status, headers);
    res.flushHeaders();
    return;
  }
  if (reply.transport === 'trickle' || reply.transport === 'trickle-forever') {
    res.writeHead(reply.status, headers);
    let offset = 0;
    const forever = reply.transport === 'trickle-forever';
    const timer = setInterval(
      () => {
        if (forever) {
          res.write(' ');
          return;
        }
        res.write(body.subarray(offset, offset + TRICKLE_CHUNK));
        offset += TRICKLE_CHUNK;
        if (offset >= body.length) {
          clearInterval(timer);
          timers.delete(timer);
          res.end();
        }
      },
      forever ? 1000 : TRICKLE_INTERVAL_MS,
    );
    timers.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
    return;
  }
  headers['content-length'] = body.length;
  if (reply.transport === 'reset-mid-body') {
    res.writeHead(reply.status, headers);
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => req.socket.destroy());
    return;
  }
  res.writeHead(reply.status, headers);
  res.end(body);
}
