// Stop the DynamoDB Local that global-setup started.
import type { LocalDynamo } from '../../infra/local/dynamodb';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __localDynamo?: LocalDynamo }).__localDynamo?.stop();
}
