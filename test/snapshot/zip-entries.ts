/** One entry of a zip file, read from its central directory and its local header. */
export interface ZipEntry {
  readonly name: string;
  /** 0: stored, 8: deflated. */
  readonly method: number;
  /** Where the entry's bytes start in the zip file: what a range request for them asks. */
  readonly dataOffset: number;
  readonly size: number;
  readonly data: Buffer;
}

/**
 * The entries of a zip file (PKWARE APPNOTE 4.3: end of central directory, central directory, local
 * headers), read independently of the writer under test. No zip64: test packages are small.
 */
export function zipEntries(zip: Buffer): ZipEntry[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`no central directory header at ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`no local header for ${name}`);
    const dataOffset = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.push({ name, method, dataOffset, size, data: zip.subarray(dataOffset, dataOffset + size) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
