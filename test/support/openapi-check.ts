// Checks answers and requests against the served OpenAPI document (infra/openapi): the operation of a
// route key, and a JSON-Schema validator (ajv, draft 2020-12 as OpenAPI 3.1) that resolves its
// `#/components/schemas/...` references. An empty list of errors means the value conforms.
import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import { openApiDocument } from '../../infra/openapi/openapi-document';

type Schema = Record<string, unknown>;

export interface DocumentedOperation {
  operationId: string;
  parameters?: { name: string; in: string; required: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema & { properties: Record<string, Schema>; required?: string[] } }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

export function openApiChecker(document = openApiDocument() as { paths: Record<string, Record<string, DocumentedOperation>>; components: Schema }) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The two formats the document uses, checked loosely (the API's own rules are stricter).
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

  function check(schema: unknown, value: unknown): ErrorObject[] {
    const text = JSON.stringify(schema).replace(/"#\/components/g, '"openapi#/components');
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text) as Schema);
      compiled.set(text, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []);
  }

  /** The operation of `GET /api/...`; throws for a key the document does not have. */
  function operation(key: string): DocumentedOperation {
    const [method, path] = key.split(' ') as [string, string];
    const found = document.paths[path]?.[method.toLowerCase()];
    if (!found) throw new Error(`The OpenAPI document has no ${key}`);
    return found;
  }

  /** The documented query fields as one object schema, to validate a query string's values. */
  function querySchema(key: string): Schema {
    const query = (operation(key).parameters ?? []).filter((parameter) => parameter.in === 'query');
    return {
      type: 'object',
      properties: Object.fromEntries(query.map((parameter) => [parameter.name, parameter.schema])),
      required: query.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    };
  }

  return {
    operation,
    querySchema,
    /** Errors of a response body against the schema documented for its status (and JSON media type). */
    response(key: string, status: number, body: unknown): ErrorObject[] | string {
      const response = operation(key).responses[String(status)];
      if (!response) return `${key} documents no ${status} answer`;
      const schema = response.content?.['application/json']?.schema;
      if (!schema) return `${key} documents its ${status} answer as ${Object.keys(response.content ?? {}).join(', ')}, not JSON`;
      return check(schema, body);
    },
    /** Errors of a JSON request body against the documented body schema. */
    body(key: string, body: unknown): ErrorObject[] | string {
      const schema = operation(key).requestBody?.content['application/json']?.schema;
      return schema ? check(schema, body) : `${key} documents no body`;
    },
    /** Errors of query values (JSON-typed, as a client would build them) against the documented query fields. */
    query(key: string, query: unknown): ErrorObject[] {
      return check(querySchema(key), query);
    },
    /** The fields a route reads (query and body) and the ones it requires. */
    fields(key: string): { names: string[]; required: string[] } {
      const query = querySchema(key);
      const body = operation(key).requestBody?.content['application/json']?.schema;
      return {
        names: [...Object.keys(query.properties as Schema), ...Object.keys(body?.properties ?? {})],
        required: [...(query.required as string[]), ...(body?.required ?? [])],
      };
    },
  };
}
