// The local queue's knobs and what it reports: its settings with the defaults `npm start` keeps, its consumers' shape and its dead letters.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../log';
import { maxReceiveCount, queueBatchSizes } from './queues';

/** A queue's consumer: a Lambda handler for SQS events, answering partial batch failures. */
export type QueueConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

export interface LocalQueueSettings {
  /** Messages per event at most; a queue with a smaller batch size of its own (queueBatchSizes) keeps it. */
  batchSize: number;
  /**
   * The longest a queue waits to fill a batch (ms); a queue with a shorter batching window of its own
   * (queueBatchingWindowSeconds) keeps it, and one without any never waits. Tests shorten it.
   */
  maxBatchingWindowMs: number;
  /** Receives before a message moves to the dead-letter list (the redrive policy's maxReceiveCount). */
  maxReceiveCount: number;
  /** How long a failed message stays invisible before it is delivered again (the visibility timeout). */
  redeliveryDelayMs: number;
  /** Batches of one queue in flight at once (the event source mapping's maximum concurrency). */
  concurrency: number;
  /** Where each queue keeps its journal; in memory only when unset. */
  directory?: string;
  log: (line: string) => void;
}

export interface DeadLetter {
  messageId: string;
  body: string;
  receiveCount: number;
  reason: string;
  at: Date;
}

/** The rules the queue starts with (`npm start` keeps them). */
export const localQueueDefaults: Readonly<LocalQueueSettings> = {
  batchSize: Math.max(...Object.values(queueBatchSizes)),
  maxBatchingWindowMs: Number.POSITIVE_INFINITY,
  maxReceiveCount,
  redeliveryDelayMs: 2_000,
  concurrency: 2,
  log: (line) => log.warn(line),
};
