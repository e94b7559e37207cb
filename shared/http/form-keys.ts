// PHP-style bracketed form keys (`strIds[0]`, `custom_field[age]`, `tags[]`) folded into arrays and
// objects, so form-encoded and multipart bodies reach validation in the same shape as JSON.

export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormFields = Record<string, FormValue>;

// Keys that would reach Object.prototype if assigned; a form must never be able to set them.
const forbidden = new Set(['__proto__', 'constructor', 'prototype']);

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

type Node = { [key: string]: Node | string };

function assign(target: Node, parts: string[], value: string): void {
  let node = target;
  for (let i = 0; i < parts.length; i++) {
    let part = parts[i] as string;
    if (forbidden.has(part)) return;
    if (part === '') part = String(Object.keys(node).length); // `a[]` appends
    if (i === parts.length - 1) {
      node[part] = value;
      return;
    }
    const next = node[part];
    if (typeof next === 'object') {
      node = next;
    } else {
      const child: Node = {};
      node[part] = child;
      node = child;
    }
  }
}

/** Objects whose keys are all non-negative integers become arrays, ordered by index. */
function toFormValue(node: Node | string): FormValue {
  if (typeof node === 'string') return node;
  const keys = Object.keys(node);
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys
      .map(Number)
      .sort((a, b) => a - b)
      .map((index) => toFormValue(node[String(index)] as Node | string));
  }
  const result: { [key: string]: FormValue } = {};
  for (const key of keys) result[key] = toFormValue(node[key] as Node | string);
  return result;
}

/** Fold flat `[name, value]` pairs into fields; a repeated plain key keeps its last value, as PHP does. */
export function foldFormPairs(pairs: Iterable<[string, string]>): FormFields {
  const root: Node = {};
  for (const [key, value] of pairs) assign(root, splitKey(key), value);
  const fields: FormFields = {};
  for (const key of Object.keys(root)) fields[key] = toFormValue(root[key] as Node | string);
  return fields;
}
