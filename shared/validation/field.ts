// Field rules: a typed builder (`integer().required().min(1)`) whose parse coerces form text to the
// field's type and answers the first failing rule's Laravel message.
import { attributeName, format, messages, type MessageKey } from './messages';

/** A file of a multipart body, as the HTTP layer reads it. */
export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  content: Buffer;
}

// eslint-disable-next-line no-control-regex -- the rule is about control characters
const controlCharacters = /[\u0000-\u001f\u007f]/;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

type Coerce<T> = (value: unknown, field: string) => Parsed<T> | { ok: false; key: MessageKey };
/** A JSON Schema fragment (draft 2020-12, as OpenAPI 3.1 uses): what a field accepts, for the API docs. */
export type JsonSchema = Record<string, unknown>;

/** What `describe()` tells of a field: its JSON Schema and whether it must be present. */
export interface FieldDescription {
  schema: JsonSchema;
  required: boolean;
}

type Check<T> = (value: T) => { key: MessageKey | 'custom'; replacements?: Record<string, string | number>; text?: string } | undefined;

interface Options {
  required: boolean;
  label?: string;
  overrides: Partial<Record<MessageKey, string>>;
  /** The JSON Schema the rules so far amount to; each rule adds its keyword (see describe()). */
  schema: JsonSchema;
}

/** Laravel trims strings and turns empty ones into null, so a blank value counts as absent. */
function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

export class Field<T, Out = T | undefined> {
  constructor(
    private readonly coerce: Coerce<T>,
    private readonly checks: Check<T>[] = [],
    private readonly options: Options = { required: false, overrides: {}, schema: {} },
  ) {}

  private with(change: Partial<Options>, check?: Check<T>): Field<T, Out> {
    return new Field<T, Out>(this.coerce, check ? [...this.checks, check] : this.checks, {
      ...this.options,
      ...change,
    });
  }

  /** Absent, null or blank fails with `The <field> field is required.` */
  required(): Field<T, T> {
    return new Field<T, T>(this.coerce, this.checks, { ...this.options, required: true });
  }

  /** The attribute name used in messages, when it is not the field name with spaces. */
  label(label: string): Field<T, Out> {
    return this.with({ label });
  }

  /** Replace one rule's message for this field (the spec's `The name field is required` for email_owner). */
  message(key: MessageKey, text: string): Field<T, Out> {
    return this.with({ overrides: { ...this.options.overrides, [key]: text } });
  }

  /**
   * Add to the field's documented JSON Schema: for fields built with `new Field(...)` and rules written
   * with `check()`, whose meaning the builder cannot see. The rules themselves stay the only check.
   */
  documented(schema: JsonSchema): Field<T, Out> {
    return this.rule(schema);
  }

  /** A rule: its keywords added to the documented schema, its check (if it has one) to the checks. */
  private rule(schema: JsonSchema, check?: Check<T>): Field<T, Out> {
    return this.with({ schema: { ...this.options.schema, ...schema } }, check);
  }

  /** The field as JSON Schema (type, format, enum, bounds, items) and whether it is required. */
  describe(): FieldDescription {
    return { schema: { ...this.options.schema }, required: this.options.required };
  }

  /** The bound's keyword for the documented type: length (strings), item count (arrays) or value. */
  private bound(kind: 'min' | 'max', limit: number): JsonSchema {
    const type = this.options.schema.type;
    return { [type === 'string' ? `${kind}Length` : type === 'array' ? `${kind}Items` : `${kind}imum`]: limit };
  }

  /** Minimum length (strings), value (numbers) or item count (arrays). */
  min(min: number): Field<T, Out> {
    return this.rule(this.bound('min', min), (value) => {
      if (typeof value === 'string') return [...value].length < min ? { key: 'minString', replacements: { min } } : undefined;
      if (typeof value === 'number') return value < min ? { key: 'minNumber', replacements: { min } } : undefined;
      if (Array.isArray(value)) return value.length < min ? { key: 'minArray', replacements: { min } } : undefined;
      return undefined;
    });
  }

  /** Maximum length (strings), value (numbers) or item count (arrays). */
  max(max: number): Field<T, Out> {
    return this.rule(this.bound('max', max), (value) => {
      if (typeof value === 'string') return [...value].length > max ? { key: 'maxString', replacements: { max } } : undefined;
      if (typeof value === 'number') return value > max ? { key: 'maxNumber', replacements: { max } } : undefined;
      if (Array.isArray(value)) return value.length > max ? { key: 'maxArray', replacements: { max } } : undefined;
      return undefined;
    });
  }

  /** One of a fixed set of values. */
  in(allowed: readonly T[]): Field<T, Out> {
    return this.rule({ enum: [...allowed] }, (value) => (allowed.includes(value) ? undefined : { key: 'in' }));
  }

  /** Matches a pattern (strings only). */
  regex(pattern: RegExp): Field<T, Out> {
    return this.rule({ pattern: pattern.source }, (value) => (typeof value === 'string' && !pattern.test(value) ? { key: 'regex' } : undefined));
  }

  /**
   * No line break or other control character (C0, tab included, and DEL) in the value as trimmed:
   * for text that goes into a mail header, where a CR or LF would end the header.
   */
  singleLine(): Field<T, Out> {
    return this.rule({ pattern: `^[^${controlCharacters.source.slice(1, -1)}]*$` }, (value) =>
      typeof value === 'string' && controlCharacters.test(value) ? { key: 'controlCharacters' } : undefined,
    );
  }

  /** A rule of the caller's own: return a full message to fail, or undefined to pass. */
  check(rule: (value: T) => string | undefined): Field<T, Out> {
    return this.with({}, (value) => {
      const text = rule(value);
      return text === undefined ? undefined : { key: 'custom', text };
    });
  }

  parse(raw: unknown, field: string): Parsed<Out> {
    const replacements = { attribute: this.options.label ?? attributeName(field) };
    const say = (key: MessageKey, extra: Record<string, string | number> = {}) =>
      format(this.options.overrides[key] ?? messages[key], { ...replacements, ...extra });
    if (isAbsent(raw)) {
      return this.options.required ? { ok: false, message: say('required') } : { ok: true, value: undefined as Out };
    }
    const coerced = this.coerce(raw, field);
    if (!coerced.ok) return { ok: false, message: 'key' in coerced ? say(coerced.key) : coerced.message };
    for (const check of this.checks) {
      const failure = check(coerced.value);
      if (failure) return { ok: false, message: failure.key === 'custom' ? (failure.text as string) : say(failure.key, failure.replacements) };
    }
    return { ok: true, value: coerced.value as unknown as Out };
  }
}

// Field constructors

/** Text, trimmed. Numbers from JSON bodies are not text and fail, as in Laravel. */
export function string(): Field<string> {
  return new Field<string>((value) => (typeof value === 'string' ? { ok: true, value: value.trim() } : { ok: false, key: 'string' })).documented({
    type: 'string',
  });
}

/** An integer, from a JSON number or form text such as `12`. */
export function integer(): Field<number> {
  return new Field<number>((value) => {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return { ok: true, value };
    if (typeof value === 'string' && /^[+-]?\d{1,15}$/.test(value.trim())) return { ok: true, value: Number(value.trim()) };
    return { ok: false, key: 'integer' };
  }).documented({ type: 'integer' });
}

/** A number (integer or decimal). */
export function numeric(): Field<number> {
  return new Field<number>((value) => {
    if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
    if (typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value.trim())) return { ok: true, value: Number(value.trim()) };
    return { ok: false, key: 'numeric' };
  }).documented({ type: 'number' });
}

/** The spec's booleans: 0/1 (also true/false), answered as the integers 0 and 1. */
export function flag(): Field<0 | 1> {
  return new Field<0 | 1>((value) => {
    if (value === true || value === 1 || value === '1' || value === 'true') return { ok: true, value: 1 };
    if (value === false || value === 0 || value === '0' || value === 'false') return { ok: true, value: 0 };
    return { ok: false, key: 'boolean' };
  }).documented({ enum: [0, 1, true, false] });
}

// Deliberately simple and strict: one @, no spaces, a dotted domain; the mail service validates further.
const emailPattern = /^[^\s@"<>(),;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && emailPattern.test(value);
}

/** An email address, trimmed and lower-cased in the domain part only. */
export function email(): Field<string> {
  return new Field<string>((value) => {
    if (typeof value !== 'string') return { ok: false, key: 'string' };
    const text = value.trim();
    if (!isEmail(text)) return { ok: false, key: 'email' };
    const at = text.lastIndexOf('@');
    return { ok: true, value: `${text.slice(0, at)}@${text.slice(at + 1).toLowerCase()}` };
  }).documented({ type: 'string', format: 'email', maxLength: 254 });
}

/** An array whose items each pass `item`; item messages name the field with its index (`str ids.0`), as Laravel does. */
export function array<T>(item: Field<T, T>): Field<T[]> {
  return new Field<T[]>((value, field) => {
    if (!Array.isArray(value)) return { ok: false, key: 'array' };
    const items: T[] = [];
    for (let i = 0; i < value.length; i++) {
      const parsed = item.parse(value[i], `${field}.${i}`);
      if (!parsed.ok) return { ok: false, message: parsed.message };
      items.push(parsed.value);
    }
    return { ok: true, value: items };
  }).documented({ type: 'array', items: item.describe().schema });
}

/** A key-value object of text (custom fields in forms: `custom_field[age]=3`). */
export function record(): Field<Record<string, unknown>> {
  return new Field<Record<string, unknown>>((value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { ok: true, value: value as Record<string, unknown> }
      : { ok: false, key: 'array' },
  ).documented({ type: 'object', additionalProperties: { type: ['string', 'number'] } });
}

/** An uploaded file (multipart). */
export function file(): Field<UploadedFile> {
  return new Field<UploadedFile>((value) =>
    value !== null && typeof value === 'object' && 'content' in value && Buffer.isBuffer((value as UploadedFile).content)
      ? { ok: true, value: value as UploadedFile }
      : { ok: false, key: 'file' },
  ).documented({ type: 'string', format: 'binary' });
}

/** Most ids one bulk operation accepts: keeps one request inside a Lambda's time and a response's size. */
export const maxBulkIds = 1000;

/** The spec's `strIds*`: a required array of record ids. */
export function idList(): Field<number[], number[]> {
  return array(integer().required().min(1)).required().min(1).max(maxBulkIds);
}
