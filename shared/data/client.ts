// The DynamoDB document client, built once per container from the configuration.
import { DocumentClient } from '../aws/dynamodb';
import { config } from '../config';

let client: DocumentClient | undefined;

/** The document client; against DynamoDB Local when `DYNAMODB_ENDPOINT` is set. */
export function db(): DocumentClient {
  if (client) return client;
  const { region, dynamoEndpoint } = config();
  client = new DocumentClient({ region, ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}) });
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
