// PHP-style bracketed form keys (`strIds[0]`, `custom_field[age]`, `tags[]`) folded into arrays and
// objects, so form-encoded and multipart bodies reach validation in the same shape as JSON.
import { BadRequestError, PayloadTooLargeError } from './errors';

export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormFields = Record<string, FormValue>;

/**
 * What one form body may hold. The API's own keys nest two levels (`value[0][1]`), its longest name
 * is a custom field's (`custom_field[` + 64 + `]`), its largest value a 350 KB design; bulk lists
 * stop at 1,000 ids. Anything past these is refused, never cut.
 */
export const formLimits = { fields: 10_000, nameBytes: 256, valueBytes: 1024 * 1024, depth: 8 };

export const formLimitMessages = {
  fields: `The body has more than ${formLimits.fields} fields.`,
  name: `A field name is longer than ${formLimits.nameBytes} bytes.`,
  value: 'The value of a field is larger than 1 MB.',
  depth: `A field name is nested more than ${formLimits.depth} levels deep.`,
};

// Keys that would reach Object.prototype if assigned; a form must never be able to set them.
const forbidden = new Set(['__proto__', 'constructor', 'prototype']);

// An index is a decimal integer written the one way (`0`, `17`; not `01` or `1e3`) that JavaScript
// holds exactly; any other bracket text is a named key, as in PHP.
const indexPattern = /^(0|[1-9]\d{0,14})$/;

/** `a[b][0]` -> ['a', 'b', '0']; `a[]` -> ['a', '']; a key without brackets is one part. */
export function splitKey(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0 || !key.endsWith(']')) return [key];
  const parts = [key.slice(0, open)];
  const rest = key.slice(open);
  const pattern = /\[([^\]]*)\]/g;
  let consumed = 0;
  for (let m = pattern.exec(rest); m; m = pattern.exec(rest)) {
    if (m.index !== consumed) return [key];
    parts.push(m[1] as string);
    consumed = m.index + m[0].length;
  }
  return consumed === rest.length ? parts : [key];
}

/** One level of the folded form: its children by key, and the index `[]` appends at next. */
interface Branch {
  children: Map<string, Branch | string>;
  nextIndex: number;
}

const newBranch = (): Branch => ({ children: new Map(), nextIndex: 0 });

function set(branch: Branch, part: string, value: Branch | string): void {
  branch.children.set(part, value);
  if (indexPattern.test(part)) branch.nextIndex = Math.max(branch.nextIndex, Number(part) + 1);
}

function assign(root: Branch, parts: string[], value: string): void {
  let branch = root;
  for (let i = 0; i < parts.length; i++) {
    // `a[]` appends after the highest index so far, as PHP does; an empty name (`=x`) is just a name.
    const part = parts[i] === '' && i > 0 ? String(branch.nextIndex) : (parts[i] as string);
    if (i === parts.length - 1) {
      set(branch, part, value);
      return;
    }
    const next = branch.children.get(part);
    if (typeof next === 'object') {
      branch = next;
    } else {
      const child = newBranch();
      set(branch, part, child);
      branch = child;
    }
  }
}

/** A branch whose keys are all indexes becomes an array ordered by index; any other, an object. */
function toFormValue(node: Branch | string): FormValue {
  if (typeof node === 'string') return node;
  const keys = [...node.children.keys()];
  if (keys.length > 0 && keys.every((key) => indexPattern.test(key))) {
    return keys
      .sort((a, b) => Number(a) - Number(b))
      .map((key) => toFormValue(node.children.get(key) as Branch | string));
  }
  const result: { [key: string]: FormValue } = {};
  for (const key of keys) result[key] = toFormValue(node.children.get(key) as Branch | string);
  return result;
}

/**
 * Fold flat `[name, value]` pairs into fields; a repeated plain key keeps its last value, as PHP does.
 * Throws 413 past a size limit and 400 past the nesting limit.
 */
export function foldFormPairs(pairs: Iterable<[string, string]>): FormFields {
  const root = newBranch();
  let count = 0;
  for (const [key, value] of pairs) {
    if (++count > formLimits.fields) throw new PayloadTooLargeError(formLimitMessages.fields);
    if (Buffer.byteLength(key) > formLimits.nameBytes) throw new PayloadTooLargeError(formLimitMessages.name);
    if (Buffer.byteLength(value) > formLimits.valueBytes) throw new PayloadTooLargeError(formLimitMessages.value);
    const parts = splitKey(key);
    if (parts.length - 1 > formLimits.depth) throw new BadRequestError(formLimitMessages.depth);
    if (parts.some((part) => forbidden.has(part))) continue;
    assign(root, parts, value);
  }
  const fields: FormFields = {};
  for (const [key, node] of root.children) fields[key] = toFormValue(node);
  return fields;
}
