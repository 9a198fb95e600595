// CRC-32 (IEEE 802.3, the one zlib, PNG and Python's binascii use), table-driven. Our own rather
// than `zlib.crc32`, which Node only has from 20.15 while `engines` promises every Node 20.

/** The remainder of every byte, reflected polynomial 0xEDB88320. */
const TABLE = Int32Array.from({ length: 256 }, (_, byte) => {
  let c = byte;
  for (let bit = 0; bit < 8; bit += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

/** The CRC-32 of `text`'s UTF-8 bytes, as an unsigned 32-bit number (as `zlib.crc32(text)`). */
export function crc32(text: string): number {
  // A key is ASCII: its characters are its bytes, with no buffer per request; anything else is encoded.
  const bytes = /^[\x00-\x7f]*$/.test(text) ? null : Buffer.from(text, 'utf8');
  const length = bytes === null ? text.length : bytes.length;
  let crc = -1;
  for (let i = 0; i < length; i += 1) {
    const byte = bytes === null ? text.charCodeAt(i) : bytes[i]!;
    crc = TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ -1) >>> 0;
}
