// What each adapter of the object-store port (object-store.ts) does.

export interface ObjectStore {
  /** The object's bytes; rejects when it does not exist or cannot be read. */
  read(bucket: string, key: string): Promise<Buffer>;
}
