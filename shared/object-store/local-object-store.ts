// The object-store port on the laptop: each bucket is a directory under the local stack's object
// directory (OBJECT_STORE_DIR), each object a file at its key, written whole by a rename so a reader
// never sees half of one. A missing object is refused as S3 refuses it (NoSuchKey).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { standIn } from '../aws-call-watch';
import { config } from '../config';
import type { ObjectStore } from './object-store-adapter';

/** The file of an object; a key that would leave its bucket's directory is refused. */
export function localObjectPath(root: string, bucket: string, key: string): string {
  const directory = resolve(root, bucket);
  const file = resolve(directory, key);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || !file.startsWith(directory + sep)) throw new Error(`Not a local object: s3://${bucket}/${key}`);
  return file;
}

/** Write an object whole (the local Firehose stand-in's PutObject). */
export function writeLocalObject(root: string, bucket: string, key: string, body: string | Buffer): void {
  const file = localObjectPath(root, bucket, key);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.part`, body);
  renameSync(`${file}.part`, file);
}

function objectRoot(): string {
  const root = config().objectStoreDirectory;
  if (root === undefined) throw new Error('OBJECT_STORE_DIR is not set: the local runtime keeps its objects there');
  return root;
}

function readLocalObject(bucket: string, key: string): Buffer {
  try {
    return readFileSync(localObjectPath(objectRoot(), bucket, key));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw Object.assign(new Error(`The specified key does not exist: s3://${bucket}/${key}`), { name: 'NoSuchKey' });
  }
}

const files: ObjectStore = { read: async (bucket, key) => readLocalObject(bucket, key) };

/** A test watching the AWS calls sees the GetObject each read stands for. */
export const localObjectStore: ObjectStore =
  process.env.LAMBDA_BUNDLE !== 'true'
    ? /* @__PURE__ */ { read: (bucket, key) => standIn({ service: 's3', operation: 'GetObject', input: { Bucket: bucket, Key: key } }, () => files.read(bucket, key)) }
    : files;
