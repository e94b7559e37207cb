// The DynamoDB document client, built once per container from the configuration.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';

let client: DynamoDBDocumentClient | undefined;

/** The document client; against DynamoDB Local when `DYNAMODB_ENDPOINT` is set. */
export function db(): DynamoDBDocumentClient {
  if (client) return client;
  const { region, dynamoEndpoint } = config();
  const base = new DynamoDBClient({
    region,
    ...(dynamoEndpoint
      ? { endpoint: dynamoEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  client = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  return client;
}

export function tableName(): string {
  return config().tableName;
}

/** Drop the cached client (used when the local runtime or a test changes the endpoint). */
export function resetDbClient(): void {
  client?.destroy();
  client = undefined;
}
