// The yardsticks a measured send is reported against, taken on the same warm DynamoDB Local and sink
// right before and right after it: the conditional-put rate, SendEmail to the sink, and the ledger's
// own claim and mark per recipient (as plain writes, as the ledger makes them, and in shared
// transactions, as it made them before), each with the CPU every process spent per unit.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutgoingMail } from '../../shared/mail/mailer';
import { cpuMeter, perUnit } from './cpu-meter';
import { startProfile } from './cpu-profile';
import { conditionalPutRate, ledgerPairRate, ledgerPairTransactionRate, sinkRate, type StoreRate } from './store-limits';

export type CpuPerUnit = ReturnType<typeof perUnit>;

export interface Measured {
  rate: StoreRate;
  cpu: CpuPerUnit;
}

export interface Yardsticks {
  /** Conditional puts, one per ledger claim. */
  put: Measured;
  /** SendEmail of one rendered mail to the sink. */
  sink: Measured;
  /** One claim (PutItem) and one mark (UpdateItem) per recipient, CPU per pair. */
  pair: Measured;
  /** The same pairs in transactions of 12 claims and 12 marks, 2 in flight, CPU per pair. */
  pairInTransactions: Measured;
}

/** CPU of all processes, in ms. */
export const cpuTotal = (cpu: Pick<CpuPerUnit, 'node_cpu_ms' | 'jvm_cpu_ms' | 'sink_cpu_ms'>) => cpu.node_cpu_ms + (cpu.jvm_cpu_ms ?? 0) + (cpu.sink_cpu_ms ?? 0);

/**
 * Every yardstick once: `puts` conditional puts (after a quarter as many to warm up), half as many
 * mails and pairs of each kind. With `profileDir`, a CPU profile of the SES calls and of the ledger
 * pairs is written there (`yardstick-sink.cpuprofile`, `yardstick-pair.cpuprofile`), to set beside a send's.
 */
export async function measureYardsticks(dynamoPort: number, sinkPid: number, concurrency: number, puts: number, mail: OutgoingMail, profileDir?: string): Promise<Yardsticks> {
  const measured = async (units: (rate: StoreRate) => number, run: () => Promise<StoreRate>, profiled?: string): Promise<Measured> => {
    const profile = profiled && profileDir ? await startProfile() : undefined;
    const meter = cpuMeter(dynamoPort, sinkPid);
    const rate = await run();
    const cpu = perUnit(meter.stop(), units(rate));
    if (profile) writeFileSync(join(profileDir!, `yardstick-${profiled}.cpuprofile`), JSON.stringify(await profile.stop()));
    return { rate, cpu };
  };
  // The warm-ups of the put and sink runs are metered with them.
  const put = await measured((rate) => rate.requests * 1.25, () => conditionalPutRate(puts, concurrency));
  const sink = await measured((rate) => rate.requests * 1.25, () => sinkRate(puts / 2, concurrency, mail), 'sink');
  const pair = await measured((rate) => rate.requests / 2, () => ledgerPairRate(puts / 2, concurrency), 'pair');
  // Its untimed seeding writes half as many items again; metered with it, as before.
  const pairInTransactions = await measured((rate) => rate.requests * 12, () => ledgerPairTransactionRate(puts / 2, 2));
  return { put, sink, pair, pairInTransactions };
}

/** The mean of two yardsticks' figures, so a neighbour's load weighs on both sides of a ratio. */
export function meanOf(before: Measured, after: Measured): { perSecond: number; cpuMs: number } {
  return { perSecond: (before.rate.requestsPerSecond + after.rate.requestsPerSecond) / 2, cpuMs: (cpuTotal(before.cpu) + cpuTotal(after.cpu)) / 2 };
}
