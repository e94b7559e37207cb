// A webhook's circuit breaker item: the failed attempts in a row of any of its deliveries and, while
// the circuit is open, when its next probe is due. Every change is one conditional UpdateItem, so
// deliverers in many containers agree on who opens it, who probes and who closes it.
import { conditionHeld, getItem, updateItem } from '../table/records';
import { webhookCircuitKey } from './keys';

export interface WebhookCircuit {
  /** Failed attempts in a row, of any of the webhook's deliveries. */
  failures: number;
  /** Epoch ms the circuit opened; absent while it is closed. */
  openSince?: number;
  /** Epoch ms the open circuit's next probe is due: the `probe_at` of the one probe message that counts. */
  nextProbeAt?: number;
  /** Probes made since it opened. */
  probes: number;
  /** The probe (its `probe_at`) that last closed the circuit: its drain is the one that runs. */
  closedBy?: number;
}

/**
 * Kept this long after its last change, then TTL removes it: an open circuit changes at every probe
 * (at most 15 minutes apart), and a closed one with failures is worth nothing a month later.
 */
const circuitRetentionSeconds = 30 * 24 * 3600;

const expiresAt = (now: number) => Math.floor(now / 1000) + circuitRetentionSeconds;

/** The webhook's circuit; closed with no failures when it has no item. `consistent` for a read a conditional write then relies on. */
export async function getCircuit(accountId: number, webhookId: number, options: { consistent?: boolean } = {}): Promise<WebhookCircuit> {
  const item = await getItem(webhookCircuitKey(accountId, webhookId), options);
  const number = (name: string) => (typeof item?.[name] === 'number' ? (item[name] as number) : undefined);
  return {
    failures: number('failures') ?? 0,
    probes: number('probes') ?? 0,
    ...(number('open_since') === undefined ? {} : { openSince: number('open_since') }),
    ...(number('next_probe_at') === undefined ? {} : { nextProbeAt: number('next_probe_at') }),
    ...(number('closed_by') === undefined ? {} : { closedBy: number('closed_by') }),
  };
}

/** One UpdateItem; false when its condition fails. */
async function update(accountId: number, webhookId: number, expression: string, condition: string | undefined, values: Record<string, unknown>): Promise<boolean> {
  return conditionHeld(
    updateItem({
      Key: webhookCircuitKey(accountId, webhookId),
      UpdateExpression: expression,
      ...(condition === undefined ? {} : { ConditionExpression: condition }),
      ExpressionAttributeValues: values,
    }),
  );
}

/** Count one more failed attempt; returns the failures in a row now. */
export async function recordFailure(accountId: number, webhookId: number, detail: string, now: number): Promise<number> {
  const result = await updateItem({
    Key: webhookCircuitKey(accountId, webhookId),
    UpdateExpression: 'ADD failures :one SET entity = :entity, last_failure = :detail, last_failure_at = :now, expires_at = :expires',
    ExpressionAttributeValues: { ':one': 1, ':entity': 'webhook-circuit', ':detail': detail.slice(0, 500), ':now': now, ':expires': expiresAt(now) },
    ReturnValues: 'UPDATED_NEW',
  });
  return Number(result.Attributes?.failures ?? 1);
}

/** A delivered attempt ends the run of failures (an open circuit is closed by its probe only). */
export async function clearFailures(accountId: number, webhookId: number): Promise<void> {
  await update(accountId, webhookId, 'SET failures = :zero', 'attribute_not_exists(open_since) AND failures > :zero', { ':zero': 0 });
}

/** Open the circuit with its first probe due at `probeAt`; false when it was open already. */
export function openCircuit(accountId: number, webhookId: number, now: number, probeAt: number): Promise<boolean> {
  return update(accountId, webhookId, 'SET open_since = :now, next_probe_at = :probe, probes = :zero, expires_at = :expires', 'attribute_not_exists(open_since)', {
    ':now': now,
    ':probe': probeAt,
    ':zero': 0,
    ':expires': expiresAt(now),
  });
}

/** Take the probe due at `due` and book the next one at `next`; false when another deliverer took it, or the circuit closed. */
export function claimProbe(accountId: number, webhookId: number, due: number, next: number, now: number): Promise<boolean> {
  return update(accountId, webhookId, 'SET next_probe_at = :next, expires_at = :expires ADD probes :one', 'attribute_exists(open_since) AND next_probe_at = :due', {
    ':due': due,
    ':next': next,
    ':one': 1,
    ':expires': expiresAt(now),
  });
}

/**
 * Close the circuit the probe `closedBy` found answering (its next probe booked at `booked`), with
 * `failures` in a row kept; false when it is no longer that probe's to close.
 */
export function closeCircuit(accountId: number, webhookId: number, closedBy: number, booked: number, failures: number, now: number): Promise<boolean> {
  return update(
    accountId,
    webhookId,
    'SET failures = :failures, closed_by = :closedBy, expires_at = :expires REMOVE open_since, next_probe_at, probes',
    'attribute_exists(open_since) AND next_probe_at = :booked',
    { ':failures': failures, ':closedBy': closedBy, ':booked': booked, ':expires': expiresAt(now) },
  );
}
