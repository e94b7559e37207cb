// Validation with references, Laravel style: each field's own rules, then (for fields that passed)
// whether the record it names exists, every failing field reported at once in schema order.
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { attributeName, format, messages, type Infer, type Schema } from '../../shared/validation';

/** Per field: does the value name a record that exists? Only called when the field's own rules passed. */
export type ReferenceChecks<S extends Schema> = { [K in keyof S]?: (value: NonNullable<Infer<S>[K]>) => Promise<boolean> };

export async function validateWithReferences<S extends Schema>(
  input: Record<string, unknown>,
  schema: S,
  references: ReferenceChecks<S>,
): Promise<Infer<S>> {
  const errors: FieldErrors = {};
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema)) {
    const parsed = field.parse(input[name], name);
    if (!parsed.ok) {
      errors[name] = [parsed.message];
      continue;
    }
    values[name] = parsed.value;
    const exists = references[name as keyof S];
    if (exists && parsed.value !== undefined && !(await exists(parsed.value))) {
      errors[name] = [format(messages.exists, { attribute: attributeName(name) })];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return values as Infer<S>;
}
