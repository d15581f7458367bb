import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, parseSecretKey, rewrapSecret, sealSecret, secretKeyId } from '../src/index.js';

const keyOf = (id?: string) => {
  const parsed = parseSecretKey(randomBytes(32).toString('base64'), id);
  if (parsed.kind !== 'ok') throw new Error(parsed.error);
  return parsed.value;
};
const address = { tenantId: 't1', env: 'production', name: 'CITATOR_KEY' };

describe('secret envelope encryption', () => {
  it('seals under a fresh data key and opens only at its own address, with its own key', () => {
    const kek = keyOf();
    const keyring = { current: kek, previous: [] };
    const one = sealSecret(kek, address, 'the-value');
    const two = sealSecret(kek, address, 'the-value');
    expect(one.kekId).toBe(secretKeyId(kek.key));
    expect(one.ciphertext.equals(two.ciphertext)).toBe(false);
    expect(one.wrappedKey.equals(two.wrappedKey)).toBe(false);
    expect(openSecret(keyring, address, one)).toEqual({ kind: 'ok', value: 'the-value' });
    // A row copied under another tenant or name does not open there.
    for (const elsewhere of [
      { ...address, tenantId: 't2' },
      { ...address, name: 'OTHER' },
      { ...address, env: 'local' },
    ]) {
      expect(openSecret(keyring, elsewhere, one)).toMatchObject({ kind: 'err', error: { code: 'secret-unreadable' } });
    }
    const flipped = Buffer.from(one.ciphertext);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
    expect(openSecret(keyring, address, { ...one, ciphertext: flipped })).toMatchObject({
      kind: 'err',
      error: { code: 'secret-unreadable' },
    });
    expect(openSecret({ current: keyOf(), previous: [] }, address, one)).toMatchObject({
      kind: 'err',
      error: { code: 'secret-key-unknown', details: { kekId: one.kekId } },
    });
  });

  it('re-wraps to the current key without touching the value', () => {
    const old = keyOf('old');
    const next = keyOf('new');
    const sealed = sealSecret(old, address, 'kept');
    const moved = rewrapSecret({ current: next, previous: [old] }, address, sealed);
    expect(moved.kind).toBe('ok');
    if (moved.kind !== 'ok') return;
    expect(moved.value.kekId).toBe('new');
    expect(moved.value.ciphertext.equals(sealed.ciphertext)).toBe(true);
    expect(openSecret({ current: next, previous: [] }, address, moved.value)).toEqual({ kind: 'ok', value: 'kept' });
  });

  it('reads a key from base64 of exactly 32 bytes, naming what is wrong otherwise', () => {
    expect(parseSecretKey('c2hvcnQ=')).toEqual({
      kind: 'err',
      error: 'a secrets key is the base64 of exactly 32 bytes',
    });
    expect(parseSecretKey(randomBytes(32).toString('base64'), 'bad id!')).toEqual({
      kind: 'err',
      error: 'a secrets key id is 1 to 64 letters, digits, - or _',
    });
  });
});
