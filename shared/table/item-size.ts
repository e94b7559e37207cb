// The size DynamoDB gives an item, by its documented rules, for the limits that are counted in it:
// 400 KB an item, 4 MB of items a transaction (DynamoDB Local counts both the same way).
import { NumberValue } from '@aws-sdk/lib-dynamodb';

/** DynamoDB's largest item: 400 KB, attribute names included. */
export const maxItemBytes = 400 * 1024;

/** A number's size: about one byte per two significant digits, plus one; at most 21. */
function numberBytes(value: number | bigint | string): number {
  const digits = String(value).replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.min(21, Math.ceil(Math.max(1, digits.length) / 2) + 1);
}

/** The size of one attribute value as the document client writes it. */
export function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...(value as Set<unknown>)].reduce<number>((sum, member) => sum + valueBytes(member), 0);
  if (value instanceof NumberValue) return numberBytes(value.toString());
  // Lists and maps: 3 bytes, plus 1 per element beside its own size (and a map's element names).
  if (Array.isArray(value)) return value.reduce<number>((sum, element) => sum + valueBytes(element) + 1, 3);
  return Object.entries(value as Record<string, unknown>).reduce<number>(
    (sum, [name, element]) => (element === undefined ? sum : sum + Buffer.byteLength(name, 'utf8') + valueBytes(element) + 1),
    3,
  );
}

/** The size of an item (or a key): each attribute's name and value. */
export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  return bytes;
}
