import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { ObservatoryError, quoteInput } from '../core/index.ts';

/** What to do when a body passes the byte limit: fail (`too_large`) or keep the first bytes (robots.txt). */
export type OverLimit = 'fail' | 'truncate';

/** The decoded body and whether it was cut at the limit. */
export interface DecodedBody {
  readonly body: Buffer;
  readonly truncated: boolean;
}

/**
 * A "deflate" body should be zlib-wrapped (RFC 9110) but some servers send raw deflate; the first
 * two bytes tell which (RFC 1950 header check), as browsers and curl do.
 */
function sniffingInflate(): Transform {
  let inner: Transform | null = null;
  const outer = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!inner) {
        const zlibHeader =
          chunk.length >= 2 && (chunk[0] & 0x0f) === 8 && ((chunk[0] << 8) | chunk[1]) % 31 === 0;
        inner = zlibHeader ? zlib.createInflate() : zlib.createInflateRaw();
        inner.on('data', (out: Buffer) => outer.push(out));
        inner.on('error', (error) => outer.destroy(error));
      }
      if (inner.write(chunk)) done();
      else inner.once('drain', done);
    },
    flush(done) {
      if (!inner) return done();
      inner.once('end', done);
      inner.end();
    },
    destroy(error, done) {
      inner?.destroy();
      done(error);
    },
  });
  return outer;
}

function decoderFor(coding: string): Transform {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return sniffingInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      if (typeof zlib.createZstdDecompress === 'function') return zlib.createZstdDecompress();
      break;
  }
  throw new ObservatoryError('bad_encoding', `unsupported Content-Encoding ${quoteInput(coding)}`);
}

/** The decoders for a Content-Encoding header, in the order they must run (last applied first). */
function decodersFor(contentEncoding: string | undefined): Transform[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  return codings.reverse().map(decoderFor);
}

class LimitReached extends Error {}

/**
 * Told the decoded bytes so far after each chunk; reading goes on once it resolves, so a body waits
 * (the server's sending with it) while the crawl's memory budget has no room for it.
 */
export type OnDecoded = (bytes: number) => Promise<void>;

/**
 * Reads and decodes a response body as it streams, stopping as soon as more than `maxBytes`
 * decoded (or raw) bytes arrive, so that a decompression bomb is stopped rather than expanded.
 */
export async function decodeContentCoding(
  source: Readable,
  contentEncoding: string | undefined,
  maxBytes: number,
  overLimit: OverLimit,
  signal?: AbortSignal,
  onDecoded?: OnDecoded,
): Promise<DecodedBody> {
  const chunks: Buffer[] = [];
  let decoded = 0;
  let raw = 0;
  let truncated = false;
  const countRaw = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      raw += chunk.length;
      // compressed data hardly ever outgrows its decoded form; past the limit it is not worth reading
      if (raw > maxBytes && overLimit === 'fail') return done(new LimitReached());
      done(null, chunk);
    },
  });
  const sink = async (decodedStream: AsyncIterable<Buffer>) => {
    for await (const chunk of decodedStream) {
      const room = maxBytes - decoded;
      if (chunk.length > room) {
        if (overLimit === 'fail') throw new LimitReached();
        chunks.push(chunk.subarray(0, room));
        decoded = maxBytes;
        truncated = true;
        throw new LimitReached();
      }
      chunks.push(chunk);
      decoded += chunk.length;
      if (onDecoded) await onDecoded(decoded);
    }
  };
  try {
    const decoders = decodersFor(contentEncoding);
    await pipeline(
      [source, countRaw, ...decoders, sink] as unknown as Parameters<typeof pipeline>,
      {
        signal,
      } as never,
    );
  } catch (error) {
    if (!(error instanceof LimitReached)) throw error;
    source.destroy();
    if (overLimit === 'fail') {
      throw new ObservatoryError('too_large', `body larger than ${maxBytes} bytes (decoded)`);
    }
  }
  return { body: Buffer.concat(chunks), truncated };
}
