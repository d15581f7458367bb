const HEX = '0123456789ABCDEF';
const utf8 = new TextEncoder();

function isUnreserved(byte: number): boolean {
  return (
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    byte === 0x2d || // -
    byte === 0x2e || // .
    byte === 0x5f || // _
    byte === 0x7e // ~
  );
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/**
 * Decodes `%XX` escapes into bytes, leaving a `%` that starts no valid escape as a literal byte, so that a
 * sloppy client's path still yields the bytes it meant. `plusIsSpace` applies form rules (query strings).
 */
export function tolerantDecode(text: string, plusIsSpace: boolean): Uint8Array {
  const raw = utf8.encode(text);
  const out = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i]!;
    if (byte === 0x25 && i + 2 < raw.length) {
      const hi = hexValue(raw[i + 1]!);
      const lo = hexValue(raw[i + 2]!);
      if (hi >= 0 && lo >= 0) {
        out[n++] = hi * 16 + lo;
        i += 2;
        continue;
      }
    }
    out[n++] = plusIsSpace && byte === 0x2b ? 0x20 : byte;
  }
  return out.subarray(0, n);
}

/** RFC 3986 percent-encoding of bytes: everything but unreserved characters, uppercase hex. */
export function uriEncodeBytes(bytes: Uint8Array, keepSlash = false): string {
  let out = '';
  for (const byte of bytes) {
    if (isUnreserved(byte) || (keepSlash && byte === 0x2f)) out += String.fromCharCode(byte);
    else out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/** RFC 3986 percent-encoding of a string's UTF-8 bytes (SigV4's UriEncode). */
export function uriEncode(text: string, keepSlash = false): string {
  return uriEncodeBytes(utf8.encode(text), keepSlash);
}

/**
 * S3's canonical URI: the wire path with every segment decoded once and re-encoded per RFC 3986. No dot
 * segment or `//` normalisation (S3 keys may contain them), a literal `+` stays a plus (`%2B`).
 */
export function canonicalUri(rawPath: string): string {
  if (rawPath === '') return '/';
  return rawPath
    .split('/')
    .map((segment) => uriEncodeBytes(tolerantDecode(segment, false)))
    .join('/');
}

/** Splits a raw query string into decoded `[name, value]` pairs in wire order; empty names are dropped. */
export function parseRawQuery(rawQuery: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const text = rawQuery.startsWith('?') ? rawQuery.slice(1) : rawQuery;
  if (text === '') return pairs;
  const decoder = new TextDecoder();
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    const name = decoder.decode(tolerantDecode(rawName, true));
    if (name === '') continue;
    pairs.push([name, decoder.decode(tolerantDecode(rawValue, true))]);
  }
  return pairs;
}

/**
 * SigV4's canonical query string: names and values decoded (`+` is a space) and re-encoded, valueless
 * parameters as `name=`, sorted by encoded name then value in code-unit order. `X-Amz-Signature` is left
 * out for presigned requests.
 */
export function canonicalQuery(rawQuery: string, presigned: boolean): string {
  const text = rawQuery.startsWith('?') ? rawQuery.slice(1) : rawQuery;
  const encoded: Array<[string, string]> = [];
  if (text !== '') {
    for (const part of text.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = uriEncodeBytes(tolerantDecode(eq < 0 ? part : part.slice(0, eq), true));
      if (name === '') continue;
      if (presigned && name === 'X-Amz-Signature') continue;
      encoded.push([name, uriEncodeBytes(tolerantDecode(eq < 0 ? '' : part.slice(eq + 1), true))]);
    }
  }
  encoded.sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return encoded.map(([name, value]) => `${name}=${value}`).join('&');
}
