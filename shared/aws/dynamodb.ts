// The DynamoDB document client the data layer uses: the commands of `@aws-sdk/lib-dynamodb` (same
// names, same input and output types, plain JavaScript values in and out), sent as signed JSON calls
// (call.ts) instead of through the generated SDK client. Attribute values are converted with the
// SDK's own `@aws-sdk/util-dynamodb`, so values round-trip exactly as they did through the SDK. There
// is no Scan command: lists Query.
import { convertToAttr, convertToNative, type marshallOptions, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactGetCommandInput,
  TransactGetCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { AwsServiceError, awsCall } from './call';

export type {
  BatchGetCommandInput,
  BatchWriteCommandInput,
  QueryCommandInput,
  TransactWriteCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';

type Json = Record<string, unknown>;
type AttributeMap = Record<string, unknown>;

const marshalling: marshallOptions = { removeUndefinedValues: true, convertEmptyValues: false };

// --- values: native <-> DynamoDB JSON (binary values travel as base64 text) ---

function wireValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(wireValue);
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [key, inner] of Object.entries(value)) out[key] = wireValue(inner);
    return out;
  }
  return value;
}

function toWire(record: Record<string, NativeAttributeValue>): AttributeMap {
  const out: AttributeMap = {};
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    out[name] = wireValue(convertToAttr(value, marshalling));
  }
  return out;
}

function binaryFromWire(attribute: Json): Json {
  if (typeof attribute.B === 'string') return { B: Buffer.from(attribute.B, 'base64') };
  if (Array.isArray(attribute.BS)) return { BS: (attribute.BS as string[]).map((item) => Buffer.from(item, 'base64')) };
  if (Array.isArray(attribute.L)) return { L: (attribute.L as Json[]).map(binaryFromWire) };
  if (attribute.M && typeof attribute.M === 'object') {
    const map: Json = {};
    for (const [key, inner] of Object.entries(attribute.M as Json)) map[key] = binaryFromWire(inner as Json);
    return { M: map };
  }
  return attribute;
}

function fromWire(record: AttributeMap): Record<string, NativeAttributeValue> {
  const out: Record<string, NativeAttributeValue> = {};
  for (const [name, attribute] of Object.entries(record)) {
    out[name] = convertToNative(binaryFromWire(attribute as Json) as never) as NativeAttributeValue;
  }
  return out;
}

const maybe = <T, R>(value: T | undefined, convert: (value: T) => R): R | undefined => (value === undefined ? undefined : convert(value));

/** Copy `input`, converting the named record fields to the wire. */
function withWire<T extends object>(input: T, fields: string[]): Json {
  const out: Json = { ...(input as Json) };
  for (const field of fields) {
    const value = out[field];
    if (value !== undefined) out[field] = toWire(value as Record<string, NativeAttributeValue>);
  }
  return out;
}

function withNative(output: Json, fields: string[]): Json {
  for (const field of fields) {
    const value = output[field];
    if (value !== undefined) output[field] = fromWire(value as AttributeMap);
  }
  return output;
}

// --- commands ---

/** A document-client command: the DynamoDB operation, its input, and how values cross the wire. */
abstract class DocumentCommand<Input extends object, Output> {
  declare readonly output: Output;
  abstract readonly operation: string;
  constructor(readonly input: Input) {}
  abstract request(): Json;
  abstract response(output: Json): Output;
}

const keyed = ['Key', 'ExpressionAttributeValues'];

export class GetCommand extends DocumentCommand<GetCommandInput, GetCommandOutput> {
  readonly operation = 'GetItem';
  request = () => withWire(this.input, ['Key']);
  response = (output: Json) => withNative(output, ['Item']) as GetCommandOutput;
}

export class PutCommand extends DocumentCommand<PutCommandInput, PutCommandOutput> {
  readonly operation = 'PutItem';
  request = () => withWire(this.input, ['Item', 'ExpressionAttributeValues']);
  response = (output: Json) => withNative(output, ['Attributes']) as PutCommandOutput;
}

export class UpdateCommand extends DocumentCommand<UpdateCommandInput, UpdateCommandOutput> {
  readonly operation = 'UpdateItem';
  request = () => withWire(this.input, keyed);
  response = (output: Json) => withNative(output, ['Attributes']) as UpdateCommandOutput;
}

export class DeleteCommand extends DocumentCommand<DeleteCommandInput, DeleteCommandOutput> {
  readonly operation = 'DeleteItem';
  request = () => withWire(this.input, keyed);
  response = (output: Json) => withNative(output, ['Attributes']) as DeleteCommandOutput;
}

function pageResponse(output: Json): Json {
  if (Array.isArray(output.Items)) output.Items = (output.Items as AttributeMap[]).map(fromWire);
  return withNative(output, ['LastEvaluatedKey']);
}

export class QueryCommand extends DocumentCommand<QueryCommandInput, QueryCommandOutput> {
  readonly operation = 'Query';
  request = () => withWire(this.input, ['ExpressionAttributeValues', 'ExclusiveStartKey']);
  response = (output: Json) => pageResponse(output) as QueryCommandOutput;
}

type KeysAndAttributes = { Keys?: AttributeMap[] } & Json;

function keysRequest(requestItems: Record<string, KeysAndAttributes>, convert: (record: AttributeMap) => AttributeMap): Json {
  const out: Json = {};
  for (const [table, request] of Object.entries(requestItems)) out[table] = { ...request, Keys: (request.Keys ?? []).map(convert) };
  return out;
}

type WriteRequest = { PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } };

function writesRequest(requestItems: Record<string, WriteRequest[]>, convert: (record: AttributeMap) => AttributeMap): Json {
  const out: Json = {};
  for (const [table, writes] of Object.entries(requestItems)) {
    out[table] = writes.map((write) =>
      write.PutRequest ? { PutRequest: { Item: convert(write.PutRequest.Item) } } : { DeleteRequest: { Key: convert(write.DeleteRequest?.Key ?? {}) } },
    );
  }
  return out;
}

const toWireMap = (record: AttributeMap) => toWire(record as Record<string, NativeAttributeValue>);

export class BatchGetCommand extends DocumentCommand<BatchGetCommandInput, BatchGetCommandOutput> {
  readonly operation = 'BatchGetItem';
  request = () => ({ ...this.input, RequestItems: keysRequest(this.input.RequestItems as Record<string, KeysAndAttributes>, toWireMap) });
  response = (output: Json) => {
    const responses: Json = {};
    for (const [table, items] of Object.entries((output.Responses ?? {}) as Record<string, AttributeMap[]>)) responses[table] = items.map(fromWire);
    output.Responses = responses;
    output.UnprocessedKeys = maybe(output.UnprocessedKeys as Record<string, KeysAndAttributes> | undefined, (keys) => keysRequest(keys, fromWire));
    return output as BatchGetCommandOutput;
  };
}

export class BatchWriteCommand extends DocumentCommand<BatchWriteCommandInput, BatchWriteCommandOutput> {
  readonly operation = 'BatchWriteItem';
  request = () => ({ ...this.input, RequestItems: writesRequest(this.input.RequestItems as Record<string, WriteRequest[]>, toWireMap) });
  response = (output: Json) => {
    output.UnprocessedItems = maybe(output.UnprocessedItems as Record<string, WriteRequest[]> | undefined, (items) => writesRequest(items, fromWire));
    return output as BatchWriteCommandOutput;
  };
}

const transactParts: Record<string, string[]> = {
  Put: ['Item', 'ExpressionAttributeValues'],
  Update: keyed,
  Delete: keyed,
  ConditionCheck: keyed,
  Get: ['Key'],
};

function transactItems(items: Json[]): Json[] {
  return items.map((item) => {
    const out: Json = {};
    for (const [kind, part] of Object.entries(item)) out[kind] = withWire(part as Json, transactParts[kind] ?? []);
    return out;
  });
}

export class TransactWriteCommand extends DocumentCommand<TransactWriteCommandInput, TransactWriteCommandOutput> {
  readonly operation = 'TransactWriteItems';
  request = () => ({ ...this.input, TransactItems: transactItems((this.input.TransactItems ?? []) as Json[]) });
  response = (output: Json) => output as TransactWriteCommandOutput;
}

export class TransactGetCommand extends DocumentCommand<TransactGetCommandInput, TransactGetCommandOutput> {
  readonly operation = 'TransactGetItems';
  request = () => ({ ...this.input, TransactItems: transactItems((this.input.TransactItems ?? []) as Json[]) });
  response = (output: Json) => {
    if (Array.isArray(output.Responses)) output.Responses = (output.Responses as Json[]).map((response) => withNative(response, ['Item']));
    return output as TransactGetCommandOutput;
  };
}

// --- the client ---

export interface DocumentClientOptions {
  region: string;
  /** DynamoDB Local's endpoint; unset, the regional endpoint (or AWS_ENDPOINT_URL_DYNAMODB). */
  endpoint?: string;
  /** Attempts per call for throttles, 5xx answers and network faults (the SDK's default is 3). */
  maxAttempts?: number;
}

export class DocumentClient {
  constructor(private readonly options: DocumentClientOptions) {}

  async send<Output>(command: DocumentCommand<object, Output>): Promise<Output> {
    let output: Json;
    try {
      output = await awsCall<Json>({
        service: 'dynamodb',
        region: this.options.region,
        endpoint: this.options.endpoint,
        operation: command.operation,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${command.operation}` },
        body: command.request(),
        maxAttempts: this.options.maxAttempts ?? 3,
      });
    } catch (error) {
      // Cancellation reasons carry the conflicting item when asked for (ReturnValuesOnConditionCheckFailure).
      if (error instanceof AwsServiceError && Array.isArray(error.CancellationReasons)) {
        error.CancellationReasons = (error.CancellationReasons as Json[]).map((reason) => withNative(reason, ['Item']));
      }
      if (error instanceof AwsServiceError && error.Item) withNative(error as unknown as Json, ['Item']);
      throw error;
    }
    return { ...command.response(output), $metadata: {} } as Output;
  }

  /** Nothing to release: connections are pooled per process. Kept so callers may treat it like the SDK client. */
  destroy(): void {}
}
