// The DynamoDB document client (lib-dynamodb over DynamoDBClient), one per container; against
// DynamoDB Local when the configuration names its endpoint.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsClient, localEndpoint } from '../aws-clients';
import { config } from '../config';

export const db = awsClient(({ region, dynamoEndpoint }) =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ region, ...localEndpoint(dynamoEndpoint) }), {
    // Optional fields are left out of items rather than stored as NULL; empty strings stay strings.
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  }),
);

export function tableName(): string {
  return config().tableName;
}
