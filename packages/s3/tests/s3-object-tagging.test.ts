import {
  DeleteObjectTaggingCommand,
  GetObjectTaggingCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { BUCKET } from './s3-harness.js';
import { SDK_BINDINGS, useSdkServer } from './s3-sdk-harness.js';

describe.each(SDK_BINDINGS)('GetObjectTagging with @aws-sdk/client-s3 (%s)', (kind) => {
  const sdk = useSdkServer(kind);

  it('answers the tags an object was stored with, in key order', async () => {
    const s3 = sdk.client();
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'tagged/ü.txt', Body: 'x', Tagging: 'zeta=last&alpha=first%20one' }),
    );
    const got = await s3.send(new GetObjectTaggingCommand({ Bucket: BUCKET, Key: 'tagged/ü.txt' }));
    expect(got.TagSet).toEqual([
      { Key: 'alpha', Value: 'first one' },
      { Key: 'zeta', Value: 'last' },
    ]);
  });

  it('answers an empty TagSet for an untagged object and NoSuchKey for a missing one', async () => {
    const s3 = sdk.client();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'plain.txt', Body: 'x' }));
    const got = await s3.send(new GetObjectTaggingCommand({ Bucket: BUCKET, Key: 'plain.txt' }));
    expect(got.TagSet ?? []).toEqual([]);
    await expect(s3.send(new GetObjectTaggingCommand({ Bucket: BUCKET, Key: 'missing.txt' }))).rejects.toMatchObject({
      name: 'NoSuchKey',
      $metadata: { httpStatusCode: 404 },
    });
  });

  it('refuses changing tags in place with 501 NotImplemented, the object unchanged', async () => {
    const s3 = sdk.client();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'kept.txt', Body: 'x', Tagging: 'a=1' }));
    const put = new PutObjectTaggingCommand({ Bucket: BUCKET, Key: 'kept.txt', Tagging: { TagSet: [] } });
    await expect(s3.send(put)).rejects.toMatchObject({ name: 'NotImplemented', $metadata: { httpStatusCode: 501 } });
    await expect(s3.send(new DeleteObjectTaggingCommand({ Bucket: BUCKET, Key: 'kept.txt' }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 501 },
    });
    const got = await s3.send(new GetObjectTaggingCommand({ Bucket: BUCKET, Key: 'kept.txt' }));
    expect(got.TagSet).toEqual([{ Key: 'a', Value: '1' }]);
  });
});
