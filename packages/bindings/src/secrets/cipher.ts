import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { err, ok, type Result } from '@kindgi/protocol';
import { type SecretError, secretError } from './errors.js';

/** A key-encryption key: 32 bytes, and the id stored beside every data key it wraps. */
export interface SecretKey {
  readonly id: string;
  readonly key: Buffer;
}

/** The key new secrets are wrapped with, and older keys still accepted for reading while a rotation runs. */
export interface SecretKeyring {
  readonly current: SecretKey;
  readonly previous: readonly SecretKey[];
}

/** A value as stored: the data key wrapped by key `kekId`, and the value encrypted by the data key. */
export interface SealedSecret {
  readonly kekId: string;
  /** iv (12) ‖ tag (16) ‖ the wrapped 32-byte data key. */
  readonly wrappedKey: Buffer;
  /** iv (12) ‖ tag (16) ‖ the encrypted UTF-8 value. */
  readonly ciphertext: Buffer;
}

/** Where a sealed value belongs: binding both layers to it keeps a row from being replayed under another name. */
export interface SecretAddress {
  readonly tenantId: string;
  readonly env: string;
  readonly name: string;
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A key's default id: the first 8 hex digits of its SHA-256 (names it without revealing it). */
export function secretKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * The key in `encoded` (base64 of 32 random bytes, e.g. `openssl rand -base64 32`), with `id` or its default.
 * @example
 * const key = parseSecretKey(randomBytes(32).toString('base64'));
 */
export function parseSecretKey(encoded: string, id?: string): Result<SecretKey, string> {
  const trimmed = encoded.trim();
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) return err('a secrets key is the base64 of exactly 32 bytes');
  if (id !== undefined && !KEY_ID.test(id)) return err('a secrets key id is 1 to 64 letters, digits, - or _');
  return ok({ id: id ?? secretKeyId(key), key });
}

function addressText(kind: string, address: SecretAddress): Buffer {
  return Buffer.from(JSON.stringify([kind, address.tenantId, address.env, address.name]), 'utf8');
}

function encrypt(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function decrypt(key: Buffer, sealed: Buffer, aad: Buffer): Buffer | undefined {
  if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}

function wrapAad(kekId: string, address: SecretAddress): Buffer {
  return addressText(`kindgi-secret-key-v1:${kekId}`, address);
}

/** Encrypts `value` under a fresh data key, wrapped by `kek`. */
export function sealSecret(kek: SecretKey, address: SecretAddress, value: string): SealedSecret {
  const dataKey = randomBytes(KEY_BYTES);
  try {
    const ciphertext = encrypt(dataKey, Buffer.from(value, 'utf8'), addressText('kindgi-secret-v1', address));
    return { kekId: kek.id, wrappedKey: encrypt(kek.key, dataKey, wrapAad(kek.id, address)), ciphertext };
  } finally {
    dataKey.fill(0);
  }
}

function keyOf(keyring: SecretKeyring, id: string): SecretKey | undefined {
  return keyring.current.id === id ? keyring.current : keyring.previous.find((key) => key.id === id);
}

function unknownKey(kekId: string): SecretError {
  return secretError('secret-key-unknown', `A secret is wrapped by key "${kekId}", which this server does not hold`, {
    kekId,
  });
}

const UNREADABLE = 'A stored secret does not decrypt: it was altered, or it belongs elsewhere';

/** The data key of `sealed`, unwrapped (the caller zeroes it). */
function unwrap(keyring: SecretKeyring, address: SecretAddress, sealed: SealedSecret): Result<Buffer, SecretError> {
  const kek = keyOf(keyring, sealed.kekId);
  if (!kek) return err(unknownKey(sealed.kekId));
  const dataKey = decrypt(kek.key, sealed.wrappedKey, wrapAad(kek.id, address));
  return dataKey?.length === KEY_BYTES ? ok(dataKey) : err(secretError('secret-unreadable', UNREADABLE));
}

/** The value of `sealed`, or why it cannot be read (an unknown key, or bytes that fail authentication). */
export function openSecret(
  keyring: SecretKeyring,
  address: SecretAddress,
  sealed: SealedSecret,
): Result<string, SecretError> {
  const dataKey = unwrap(keyring, address, sealed);
  if (dataKey.kind === 'err') return dataKey;
  try {
    const plain = decrypt(dataKey.value, sealed.ciphertext, addressText('kindgi-secret-v1', address));
    return plain ? ok(plain.toString('utf8')) : err(secretError('secret-unreadable', UNREADABLE));
  } finally {
    dataKey.value.fill(0);
  }
}

/** `sealed` with its data key wrapped by the keyring's current key instead (the value is not touched). */
export function rewrapSecret(
  keyring: SecretKeyring,
  address: SecretAddress,
  sealed: SealedSecret,
): Result<SealedSecret, SecretError> {
  const dataKey = unwrap(keyring, address, sealed);
  if (dataKey.kind === 'err') return dataKey;
  try {
    const { current } = keyring;
    return ok({
      ...sealed,
      kekId: current.id,
      wrappedKey: encrypt(current.key, dataKey.value, wrapAad(current.id, address)),
    });
  } finally {
    dataKey.value.fill(0);
  }
}
