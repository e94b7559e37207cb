// The local stack a capacity bench prices a run on: in process, in memory, its delivery stream
// buffering for the deployed interval (so its objects are the deployed ones), the sink's mail to
// `addresses` tallied and dropped as it lands (its memory stays flat), all of it removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack, type LocalStack } from '../../infra/local/local-stack';
import { deliveryBufferSeconds } from '../../infra/ses-delivery-stream';
import { drainSink } from './sink-drain';

export type SinkDrain = ReturnType<typeof drainSink>;

/** Run `work` on a fresh stack; the stack, its data directory and the drain are gone when this resolves. */
export async function withCapacityStack(addresses: RegExp, work: (stack: LocalStack, dataDir: string, drain: SinkDrain) => Promise<void>): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-'));
  const stack = await startLocalStack({ port: 0, dynamoPort: 0, sesPort: 0, quiet: true, log: () => undefined, dataDir, inMemory: true, deliveryBufferMs: deliveryBufferSeconds * 1000 });
  const drain = drainSink(addresses, 250);
  try {
    await work(stack, dataDir, drain);
  } finally {
    drain.stop();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A bench script's entry: an error is printed and fails the process. */
export function runBench(main: () => Promise<void>): void {
  void main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
