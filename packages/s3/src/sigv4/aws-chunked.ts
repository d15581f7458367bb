import { createHash, type Hash } from 'node:crypto';
import { S3BodyError, s3Error } from '../errors.js';
import { chunkStringToSign, constantTimeEqual, signHex, trailerStringToSign } from './signing.js';

/** What chunk signatures are checked with (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]`). */
export interface ChunkSigning {
  signingKey: Uint8Array;
  amzDate: string;
  scope: string;
  /** The request's own signature: the "previous signature" of the first chunk. */
  seedSignature: string;
}

/** How an aws-chunked body is framed. */
export interface AwsChunkedOptions {
  /** Present for signed chunks: every chunk signature is verified. */
  signing?: ChunkSigning;
  /** The trailers carry `x-amz-trailer-signature` (only with `signing`). */
  signedTrailer?: boolean;
}

const MAX_LINE = 4096;

type State = 'header' | 'data' | 'data-crlf' | 'trailer' | 'done';

function malformed(message: string): S3BodyError {
  return new S3BodyError(s3Error('IncompleteBody', `Malformed aws-chunked body: ${message}`));
}

/**
 * Incremental decoder for `Content-Encoding: aws-chunked` bodies: strips the framing, verifies chunk and
 * trailer signatures as they complete and collects the trailers. Failures throw `S3BodyError`.
 */
export class AwsChunkedDecoder {
  private state: State = 'header';
  private line: Buffer = Buffer.alloc(0);
  private remaining = 0;
  private chunkHash: Hash | undefined;
  private chunkSignature = '';
  private previousSignature: string;
  private readonly trailerLines: Array<[string, string]> = [];
  private trailerSignature: string | undefined;

  constructor(private readonly options: AwsChunkedOptions) {
    this.previousSignature = options.signing?.seedSignature ?? '';
  }

  /** Feeds bytes and returns the payload bytes they contained (views into `input`, no copy). */
  push(input: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let offset = 0;
    while (offset < input.length) {
      if (this.state === 'data') {
        const take = Math.min(this.remaining, input.length - offset);
        const slice = input.subarray(offset, offset + take);
        this.chunkHash?.update(slice);
        out.push(slice);
        this.remaining -= take;
        offset += take;
        if (this.remaining === 0) this.state = 'data-crlf';
        continue;
      }
      if (this.state === 'done') {
        if (input.subarray(offset).some((byte) => byte !== 0x0d && byte !== 0x0a)) {
          throw malformed('bytes after the final chunk');
        }
        return out;
      }
      const newline = input.indexOf(0x0a, offset);
      const end = newline < 0 ? input.length : newline + 1;
      this.line =
        this.line.length === 0 ? input.subarray(offset, end) : Buffer.concat([this.line, input.subarray(offset, end)]);
      offset = end;
      if (newline < 0) {
        if (this.line.length > MAX_LINE) throw malformed('a framing line is too long');
        continue;
      }
      const text = this.line.toString('latin1');
      this.line = Buffer.alloc(0);
      if (!text.endsWith('\r\n')) throw malformed('framing lines must end with CRLF');
      this.onLine(text.slice(0, -2));
    }
    return out;
  }

  /** Confirms the body ended after its final chunk and trailers; returns the trailers (names lowercased). */
  finish(): Map<string, string> {
    if (this.state !== 'done') throw malformed('the body ended before its final chunk');
    return new Map(this.trailerLines.map(([name, value]) => [name.toLowerCase(), value]));
  }

  private onLine(text: string): void {
    switch (this.state) {
      case 'header':
        this.onChunkHeader(text);
        return;
      case 'data-crlf':
        if (text !== '') throw malformed('chunk data is longer than its declared size');
        this.verifyChunk();
        this.state = 'header';
        return;
      case 'trailer':
        this.onTrailerLine(text);
        return;
      default:
        throw malformed('unexpected framing');
    }
  }

  private onChunkHeader(text: string): void {
    const [sizeText = '', ...extensions] = text.split(';');
    if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText.trim())) throw malformed('a chunk size is not hexadecimal');
    const size = Number.parseInt(sizeText.trim(), 16);
    const signature = extensions
      .map((ext) => ext.trim())
      .find((ext) => ext.startsWith('chunk-signature='))
      ?.slice('chunk-signature='.length);
    if (this.options.signing) {
      if (signature === undefined || !/^[0-9a-f]{64}$/.test(signature)) {
        throw new S3BodyError(s3Error('SignatureDoesNotMatch', 'A chunk carries no valid chunk-signature.'));
      }
      this.chunkSignature = signature;
      this.chunkHash = createHash('sha256');
    }
    if (size === 0) {
      this.verifyChunk();
      this.state = 'trailer';
      return;
    }
    this.remaining = size;
    this.state = 'data';
  }

  private verifyChunk(): void {
    const signing = this.options.signing;
    if (!signing || !this.chunkHash) return;
    const digest = this.chunkHash.digest('hex');
    const expected = signHex(
      signing.signingKey,
      chunkStringToSign(signing.amzDate, signing.scope, this.previousSignature, digest),
    );
    if (!constantTimeEqual(expected, this.chunkSignature)) {
      throw new S3BodyError(s3Error('SignatureDoesNotMatch', 'A chunk signature does not match.'));
    }
    this.previousSignature = this.chunkSignature;
    this.chunkHash = undefined;
  }

  private onTrailerLine(text: string): void {
    if (text === '') {
      this.verifyTrailer();
      this.state = 'done';
      return;
    }
    const match = /^([^:=\s]+)\s*[:=]\s*(.*)$/.exec(text);
    if (!match) throw new S3BodyError(s3Error('MalformedTrailerError'));
    const [, name, value] = match as unknown as [string, string, string];
    if (name.toLowerCase() === 'x-amz-trailer-signature') this.trailerSignature = value.trim();
    else if (text.indexOf(':') !== name.length) throw new S3BodyError(s3Error('MalformedTrailerError'));
    else this.trailerLines.push([name, value.trim()]);
  }

  private verifyTrailer(): void {
    const signing = this.options.signing;
    if (!this.options.signedTrailer || !signing) return;
    if (this.trailerSignature === undefined) {
      throw new S3BodyError(s3Error('SignatureDoesNotMatch', 'The trailer signature is missing.'));
    }
    const text = this.trailerLines.map(([name, value]) => `${name.toLowerCase()}:${value}\n`).join('');
    const expected = signHex(
      signing.signingKey,
      trailerStringToSign(signing.amzDate, signing.scope, this.previousSignature, text),
    );
    if (!constantTimeEqual(expected, this.trailerSignature.toLowerCase())) {
      throw new S3BodyError(s3Error('SignatureDoesNotMatch', 'The trailer signature does not match.'));
    }
  }
}
