/** What an S3 access key grants: one tenant's one bucket. */
export interface S3Credential {
  secretKey: string;
  tenantId: string;
  bucket: string;
  /** After this instant the key is refused (`AccessDenied`). */
  expiresAt?: Date;
}

/** Deployment-owned lookup of S3 access keys; `null` for unknown or revoked keys. */
export interface S3CredentialBinding {
  resolve(accessKeyId: string): Promise<S3Credential | null>;
}
