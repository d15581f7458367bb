import type { S3Credential, S3CredentialBinding } from '@kindgi/bindings';

/** An `S3CredentialBinding` over a fixed access key id → credential map; other keys resolve to null. */
export function createStaticS3Credentials(credentials: Record<string, S3Credential>): S3CredentialBinding {
  const map = new Map(Object.entries(credentials));
  return {
    async resolve(accessKeyId) {
      const credential = map.get(accessKeyId);
      return credential === undefined ? null : { ...credential };
    },
  };
}
