// Validate an input object against a schema of fields: the typed values, or one ValidationError
// listing every failing field (in schema order) with its message.
import { ValidationError, type FieldErrors } from '../errors';
import type { Field } from './field';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a schema mixes fields of every type
export type Schema = Record<string, Field<any, any>>;

export type Infer<S extends Schema> = { [K in keyof S]: S[K] extends Field<infer _T, infer Out> ? Out : never };

export function validate<S extends Schema>(input: Record<string, unknown>, schema: S): Infer<S> {
  const errors: FieldErrors = {};
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema)) {
    const parsed = field.parse(input[name], name);
    if (parsed.ok) values[name] = parsed.value;
    else errors[name] = [parsed.message];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return values as Infer<S>;
}
