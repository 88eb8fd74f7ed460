import { isUtf8 } from 'node:buffer';

/** How a body's bytes become text: an encoding (as TextDecoder names it), after `offset` bytes of BOM. */
export interface BodyEncoding {
  readonly encoding: string;
  readonly offset: number;
}

/** Decodes a body, or a prefix of one, in the encoding bodyEncoding chose for it. */
export function decodeAs(body: Uint8Array, { encoding, offset }: BodyEncoding): string {
  return new TextDecoder(encoding).decode(body.subarray(offset));
}

/**
 * The encoding a body's bytes are read in. Precedence: a byte-order mark; the charset of the
 * Content-Type; UTF-16 recognised from a leading `<` without BOM; the XML declaration's encoding or
 * an HTML `<meta charset>` in the first KiB; then UTF-8 when the bytes are valid UTF-8, else
 * windows-1252 (what ISO-8859-1 labels mean on the Web, and the usual reality of undeclared legacy
 * text).
 */
export function bodyEncoding(body: Uint8Array, declaredCharset: string | null): BodyEncoding {
  const bom = bomEncoding(body);
  if (bom) return { encoding: bom.encoding, offset: bom.length };
  const declared = declaredCharset ? decoderFor(declaredCharset) : null;
  if (declared) return { encoding: declared.encoding, offset: 0 };
  if (body.length >= 4 && body[0] === 0x3c && body[1] === 0 && body[2] !== 0) {
    return { encoding: 'utf-16le', offset: 0 };
  }
  if (body.length >= 4 && body[0] === 0 && body[1] === 0x3c && body[3] !== 0) {
    return { encoding: 'utf-16be', offset: 0 };
  }
  const inDocument = inDocumentCharset(body);
  const decoder = inDocument ? decoderFor(inDocument) : null;
  if (decoder && !/^utf-16/.test(decoder.encoding)) return { encoding: decoder.encoding, offset: 0 };
  return { encoding: isUtf8(body) ? 'utf-8' : 'windows-1252', offset: 0 };
}

function bomEncoding(body: Uint8Array): { encoding: string; length: number } | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (body[0] === 0xff && body[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (body[0] === 0xfe && body[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return null;
}

function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label);
  } catch {
    return null;
  }
}

/** The encoding an XML declaration or HTML meta element names in the first KiB, if any. */
function inDocumentCharset(body: Uint8Array): string | null {
  const head = new TextDecoder('latin1').decode(body.subarray(0, 1024));
  const xml = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([\w.:-]+)["']/.exec(head);
  if (xml) return xml[1];
  const meta = /<meta\b[^>]*?\bcharset\s*=\s*["']?([\w.:-]+)/i.exec(head);
  return meta ? meta[1] : null;
}
