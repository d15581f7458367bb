import type { BlobStorageBinding } from '@kindgi/bindings';
import { afterEach, beforeEach, describe } from 'vitest';
import { accessContract } from './contract-access.js';
import type { BlobStorageContractFactory, BlobStorageContractSubject } from './contract-helpers.js';
import { keyContract } from './contract-keys.js';
import { limitsContract } from './contract-limits.js';
import { multipartContract } from './contract-multipart.js';
import { objectContract } from './contract-objects.js';
import { uploadsContract } from './contract-uploads.js';

export type { BlobStorageContractFactory, BlobStorageContractSubject } from './contract-helpers.js';

/**
 * The `BlobStorageBinding` contract as a vitest suite. Every implementation runs it with a factory that
 * returns a fresh, empty binding; each test gets its own and closes it afterwards.
 */
export function describeBlobStorageContract(name: string, factory: BlobStorageContractFactory): void {
  describe(`BlobStorageBinding contract: ${name}`, () => {
    let subject: BlobStorageContractSubject | undefined;
    const storage = (): BlobStorageBinding => {
      if (subject === undefined) throw new Error('the contract factory has not produced a binding yet');
      return subject.storage;
    };
    beforeEach(async () => {
      subject = await factory();
    });
    afterEach(async () => {
      const current = subject;
      subject = undefined;
      await current?.close?.();
    });
    describe('objects', () => objectContract(storage));
    describe('conditions, listing and tenants', () => accessContract(storage));
    describe('keys and listByPrefix', () => keyContract(storage));
    describe('multipart uploads', () => multipartContract(storage));
    describe('upload listing, expiry and retries', () => uploadsContract(storage));
    describe('limits per tenant', () => limitsContract(storage));
  });
}
