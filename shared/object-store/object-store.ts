// The object-store port: read one object whole. The adapter is chosen here, and only here, from the
// runtime (S3 on AWS; locally, files under the local stack's data directory).
import { config } from '../config';
import { localObjectStore } from './local-object-store';
import type { ObjectStore } from './object-store-adapter';
import { s3ObjectStore } from './s3-object-store';

// A Lambda bundle never runs locally: its build drops the local adapter.
function adapter(): ObjectStore {
  return process.env.LAMBDA_BUNDLE !== 'true' && config().runtime === 'local' ? localObjectStore : s3ObjectStore;
}

/** The object `key` of `bucket`, whole. */
export async function readObject(bucket: string, key: string): Promise<Buffer> {
  return adapter().read(bucket, key);
}
