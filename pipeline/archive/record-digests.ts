import { createHash } from 'node:crypto';

/** The digest algorithms a WARC-*-Digest may name, as Node's crypto calls them, with their length in bytes. */
const ALGORITHMS: Readonly<Record<string, { readonly node: string; readonly bytes: number }>> = {
  sha1: { node: 'sha1', bytes: 20 },
  sha256: { node: 'sha256', bytes: 32 },
  'sha-256': { node: 'sha256', bytes: 32 },
  sha512: { node: 'sha512', bytes: 64 },
  'sha-512': { node: 'sha512', bytes: 64 },
};

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base 32 without padding, as Heritrix writes sha1 digests. */
function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/**
 * Whether `data` has the digest `label` (`algorithm:value`, the value in hex, as our writer and
 * Webrecorder's tools write it, or in base 32, as Heritrix writes sha1), or why it cannot be told.
 */
export function digestProblem(name: string, label: string, data: Buffer): string | null {
  const colon = label.indexOf(':');
  const algorithm = ALGORITHMS[label.slice(0, colon).toLowerCase()];
  if (colon < 0 || algorithm === undefined)
    return `its ${name} ${label} names no digest this software checks`;
  const written = label.slice(colon + 1).replace(/=+$/, '');
  const actual = createHash(algorithm.node).update(data).digest();
  const matches =
    written.length === 2 * algorithm.bytes
      ? written.toLowerCase() === actual.toString('hex')
      : written.toUpperCase() === base32(actual);
  return matches ? null : `it does not match its ${name}`;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/**
 * What is wrong with an inflated WARC record against its own digests, or null: its WARC head must
 * end, its Content-Length must be a number of bytes the record holds, its block (those bytes) must
 * match WARC-Block-Digest and, for a `response` or `request` of `application/http`, its payload
 * (the block after the HTTP head) WARC-Payload-Digest. Our writer gives both digests to every
 * response and the block digest to every request (docs/archive.md), so there they must be present,
 * and a payload digest to a request only when it has a payload (older files give a GET one too:
 * checked when present); a warcinfo has none. A
 * `revisit` record's payload digest names the earlier payload and is not checked here.
 */
export function recordDigestProblem(record: Buffer): string | null {
  const headEnd = record.indexOf(CRLF2);
  if (!record.subarray(0, 6).equals(Buffer.from('WARC/1')) || headEnd < 0) return 'it has no WARC head';
  const head = new Map<string, string>();
  for (const line of record.subarray(0, headEnd).toString('latin1').split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon > 0 && !head.has(name)) head.set(name, line.slice(colon + 1).trim());
  }
  const declared = head.get('content-length') ?? '';
  const start = headEnd + CRLF2.length;
  if (!/^\d+$/.test(declared) || start + Number(declared) > record.length) {
    return `its Content-Length ${declared} is not the length of a block it holds (${record.length - start} bytes)`;
  }
  const block = record.subarray(start, start + Number(declared));
  const type = head.get('warc-type') ?? '';
  const http =
    (type === 'response' || type === 'request') &&
    /^application\/http\b/i.test(head.get('content-type') ?? '');
  const blockDigest = head.get('warc-block-digest');
  if (blockDigest === undefined) return http ? 'it has no WARC-Block-Digest' : null;
  const blockProblem = digestProblem('WARC-Block-Digest', blockDigest, block);
  if (blockProblem !== null || !http) return blockProblem;
  const httpEnd = block.indexOf(CRLF2);
  if (httpEnd < 0) return 'its HTTP head does not end';
  const payload = block.subarray(httpEnd + CRLF2.length);
  const payloadDigest = head.get('warc-payload-digest');
  if (payloadDigest === undefined) {
    return type === 'request' && payload.length === 0 ? null : 'it has no WARC-Payload-Digest';
  }
  return digestProblem('WARC-Payload-Digest', payloadDigest, payload);
}
