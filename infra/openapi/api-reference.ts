// docs/api-reference.md, rendered from the OpenAPI document: every route by family with its
// credentials, query and body fields (type, required, rules) and answers (the shape of each success),
// then the records those answers carry. `npm run openapi` writes it
// and test/infra/openapi.test.ts fails while the file differs from what the code generates.
import { resolve } from 'node:path';
import { openApiDocument } from './openapi-document';

/** Where the reference lives in the repository. */
export const apiReferenceFile = resolve(__dirname, '..', '..', 'docs', 'api-reference.md');

type Schema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Schema;
}

interface Operation {
  operationId: string;
  tags: string[];
  security: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string) => `\`${text}\``;

/** A field's type in words: `integer`, `array of string`, `string (email)`, `0 or 1`. */
export function typeOf(schema: Schema): string {
  if (schema.const !== undefined) return code(JSON.stringify(schema.const));
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type as string | undefined);
  if (type === 'array') return `array of ${typeOf((schema.items as Schema | undefined) ?? {})}`;
  if (type === undefined && Array.isArray(schema.enum)) return schema.enum.map((value) => code(JSON.stringify(value))).join(', ');
  return `${type ?? 'any'}${schema.format ? ` (${schema.format as string})` : ''}`;
}

/** Its rules in words: bounds, allowed values, pattern, description. */
export function rulesOf(schema: Schema): string {
  const rules: string[] = [];
  const bound = (key: string, words: string) => schema[key] !== undefined && rules.push(`${words} ${schema[key] as number}`);
  bound('minLength', 'at least');
  bound('maxLength', 'at most');
  bound('minimum', '≥');
  bound('maximum', '≤');
  bound('minItems', 'at least');
  bound('maxItems', 'at most');
  if (schema.type === 'string' && (schema.minLength !== undefined || schema.maxLength !== undefined)) rules.push('characters');
  if (schema.type === 'array' && (schema.minItems !== undefined || schema.maxItems !== undefined)) rules.push('items');
  if (Array.isArray(schema.enum) && schema.type !== undefined) rules.push(`one of ${schema.enum.map((value) => code(String(value))).join(', ')}`);
  const items = schema.items as Schema | undefined;
  if (items && Array.isArray(items.enum)) rules.push(`each one of ${items.enum.map((value) => code(String(value))).join(', ')}`);
  if (items?.pattern) rules.push(`each matching ${code(items.pattern as string)}`);
  if (schema.pattern) rules.push(`matching ${code(schema.pattern as string)}`);
  if (schema.description) rules.push(schema.description as string);
  return rules.join('; ').replace(/(\d+); (characters|items)/g, '$1 $2');
}

function fieldTable(rows: { name: string; required: boolean; schema: Schema }[]): string[] {
  if (rows.length === 0) return ['None.', ''];
  return [
    '| Field | Type | Required | Rules |',
    '| --- | --- | --- | --- |',
    ...rows.map((row) => `| ${code(row.name)} | ${cell(typeOf(row.schema))} | ${row.required ? 'yes' : 'no'} | ${cell(rulesOf(row.schema))} |`),
    '',
  ];
}

const refName = (schema: Schema) => (typeof schema.$ref === 'string' ? schema.$ref.split('/').at(-1) : undefined);

/** A schema in one line, as the reference shows answers: `{contactType: ContactType}`, `[Segment]`, `"Added Successfully"`. */
export function shapeOf(schema: Schema): string {
  const name = refName(schema);
  if (name) return `[${name}](#${name.toLowerCase()})`;
  if (schema.const !== undefined) return code(JSON.stringify(schema.const));
  if (Array.isArray(schema.allOf)) return (schema.allOf as Schema[]).map(shapeOf).join(' + ');
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as Schema[]).map(shapeOf).join(' or ');
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => code(JSON.stringify(value))).join(' or ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const nullable = types.includes('null') ? ' or null' : '';
  if (types.includes('array')) return `[${shapeOf((schema.items as Schema | undefined) ?? {})}]${nullable}`;
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const members = Object.entries(properties).map(([key, value]) => `${key}${required.has(key) ? '' : '?'}: ${shapeOf(value)}`);
    return `{${members.join(', ')}}${nullable}`;
  }
  return `${types.filter((type) => type !== 'null').join(' or ') || 'any'}${nullable}`;
}

/** The records the answers name: each field with its type and rules, all required unless marked. */
function recordSections(schemas: Record<string, Schema>): string[] {
  const lines = ['## Records', '', 'Every field listed is always present; records may carry more fields than listed.', ''];
  for (const [name, schema] of Object.entries(schemas)) {
    const properties = schema.properties as Record<string, Schema> | undefined;
    if (!properties || schema.description === undefined || name.endsWith('Failure') || name === 'FieldErrors') continue;
    lines.push(`### ${name}`, '', schema.description as string, '', '| Field | Type | Rules |', '| --- | --- | --- |');
    for (const [field, fieldSchema] of Object.entries(properties)) {
      lines.push(`| ${code(field)} | ${cell(refName(fieldSchema) || fieldSchema.items || fieldSchema.additionalProperties ? shapeOf(fieldSchema) : typeOf(fieldSchema))} | ${cell(rulesOf(fieldSchema))} |`);
    }
    lines.push('');
  }
  return lines;
}

/** An answer in words: the success envelope's shape, a failure's description. */
function answerLine(status: string, response: Operation['responses'][string]): string {
  const media = response.content ? ` (${Object.keys(response.content).join(', ')})` : '';
  const schema = (response.content?.['application/json'] as { schema?: Schema } | undefined)?.schema;
  if (status === '200' && schema?.properties) return `- ${status}${media}: ${response.description.replace(/\.$/, '')}: ${shapeOf(schema)}`;
  return `- ${status}${media}: ${response.description}`;
}

function operationSection(method: string, path: string, operation: Operation): string[] {
  const query = (operation.parameters ?? []).filter((parameter) => parameter.in !== 'header');
  const body = operation.requestBody?.content['application/json']?.schema;
  const required = new Set((body?.required as string[] | undefined) ?? []);
  const bodyRows = Object.entries((body?.properties as Record<string, Schema> | undefined) ?? {}).map(([name, schema]) => ({ name, required: required.has(name), schema }));
  const lines = [
    `### ${method.toUpperCase()} ${path}`,
    '',
    `Operation ${code(operation.operationId)}; ${operation.security.length > 0 ? 'needs the `PublicKey` and `SecretKey` headers' : 'public: no credentials'}.`,
    '',
  ];
  if (query.length > 0) lines.push('Query and path parameters:', '', ...fieldTable(query));
  if (operation.requestBody) lines.push('Body fields (JSON, form-urlencoded or multipart):', '', ...fieldTable(bodyRows));
  lines.push(
    'Answers:',
    '',
    ...Object.entries(operation.responses).map(([status, response]) => answerLine(status, response)),
    '',
  );
  return lines;
}

/** The whole reference as Markdown. */
export function apiReference(): string {
  const document = openApiDocument() as { info: { description: string }; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = operation.tags[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), ...operationSection(method, path, operation)]);
    }
  }
  const lines = [
    '# API reference',
    '',
    '<!-- Generated by `npm run openapi` from the routing table and the operations\' field rules; do not edit. -->',
    '',
    document.info.description,
    '',
    'The same document is served as OpenAPI 3.1 at `/api/openapi.json`, with an interactive viewer at `/api/docs` ',
    '(locally: `npm start`, then `http://localhost:3000/api/docs`). Failures answer `{"status": "failed", "errors": ...}`: ',
    'a text, or the failing fields\' messages by field name (422).',
    '',
    '## Families',
    '',
    ...[...byTag.keys()].map((tag) => `- [${tag}](#${tag})`),
    '- [Records](#records): the records the answers carry',
    '',
  ];
  for (const [tag, sections] of byTag) lines.push(`## ${tag}`, '', ...sections);
  lines.push(...recordSections(document.components.schemas));
  return `${lines.join('\n').trimEnd()}\n`;
}
