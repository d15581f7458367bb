export { createBackendClient, type S3BackendConfig, type S3Timeouts } from './client.js';
export { openS3BlobStorage, type S3BlobStorage, type S3BlobStorageOptions } from './storage.js';
