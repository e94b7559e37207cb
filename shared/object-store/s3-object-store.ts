// The object-store port on AWS: S3 GetObject, read whole (the objects it serves are a megabyte or so).
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { awsClient } from '../aws-clients';
import type { ObjectStore } from './object-store-adapter';

const s3Client = awsClient(({ region }) => new S3Client({ region }));

export const s3ObjectStore: ObjectStore = {
  async read(bucket, key) {
    const answer = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    if (!answer.Body) throw new Error(`S3 returned no body for s3://${bucket}/${key}`);
    return Buffer.from(await answer.Body.transformToByteArray());
  },
};
