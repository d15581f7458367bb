import { S3Client } from '@aws-sdk/client-s3';

/** Where the bytes live: any S3-compatible endpoint (AWS S3, MinIO, Ceph RGW, another Kindgi). */
export interface S3BackendConfig {
  /** `https://…`; omitted for AWS S3 itself. */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `/<bucket>/<key>` URLs instead of `<bucket>.<host>` (MinIO, moto, Kindgi need it). */
  forcePathStyle?: boolean;
}

/** How long a request to the store may take before it fails instead of hanging. */
export interface S3Timeouts {
  /** Establishing a connection (default 3,000 ms). */
  connectTimeoutMs?: number;
  /** A socket idle for this long fails the request (default 30,000 ms). */
  requestTimeoutMs?: number;
  /** Attempts per request, the first included (default 2). */
  maxAttempts?: number;
}

/**
 * An S3 client for the blob backend. Checksums are only those the operation requires: every body already
 * carries its Content-MD5, and a second (CRC) pass over each byte would cost CPU for no extra safety.
 */
export function createBackendClient(config: S3BackendConfig, timeouts: S3Timeouts = {}): S3Client {
  return new S3Client({
    region: config.region,
    ...(config.endpoint !== undefined ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle ?? false,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    maxAttempts: timeouts.maxAttempts ?? 2,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: timeouts.connectTimeoutMs ?? 3_000,
      requestTimeout: timeouts.requestTimeoutMs ?? 30_000,
    },
  });
}
