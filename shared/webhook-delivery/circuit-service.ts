// A webhook's circuit breaker. After `circuitFailureThreshold` failed attempts in a row, the webhook's
// deliveries are parked in the table instead of tried (and instead of waiting in the queue); one probe
// message at a time tries the oldest of them on a slow schedule; the probe that gets a 2xx closes the
// circuit and starts the drain, which queues the parked deliveries again page by page. Each step is
// a message of the webhook queue and a conditional write on the circuit's item, so a step repeated
// (SQS delivers at least once) or raced by another container does not run twice.
import { log } from '../log';
import { sendMessages } from '../queue/queue';
import { maxDelaySeconds } from '../queue/queues';
import { currentTime } from '../time';
import { claimProbe, closeCircuit, getCircuit, openCircuit, type WebhookCircuit } from '../webhooks/circuit';
import { attemptDelivery } from './delivery';
import type { WebhookDeliveryMessage } from './events';
import { parkedDeliveryShards } from '../webhooks/keys';
import { parkDelivery, parkedDeliveries, removeParkedDeliveries, type ParkedDelivery } from '../webhooks/parked-deliveries';
import { getStoredWebhook } from '../webhooks/repository';

/** Failed attempts in a row, of any of a webhook's deliveries, that open its circuit. */
export const circuitFailureThreshold = 10;

/** Seconds from the opening to the first probe, then between probes: the last one repeats (SQS's longest delay). */
export const probeDelaysSeconds = [60, 300, 900] as const;

/**
 * After a drain has emptied every shard it goes over them once more this much later: a deliverer that
 * read the circuit open just before it closed has parked its delivery by then (webhook-deliver runs
 * at most 90 s, infra/function-timeouts.ts).
 */
export const drainSweepDelaySeconds = 300;

/** Parked deliveries one drain message queues again. */
const drainPageSize = 100;

/** A probe this late was lost (its message dead-lettered): the next delivery parked books another. */
const lostProbeMs = 3_600_000;

/** A delivery as it is parked and queued again: with its id. */
export type IdentifiedDelivery = WebhookDeliveryMessage & { delivery_id: string };

/** The open circuit's probe, due at `probe_at` (epoch ms); only the one the circuit's item names counts. */
export interface WebhookProbeMessage {
  account_id: number;
  webhook_id: number;
  probe_at: number;
}

/** One page of the drain started by the probe `drain_for` closing the circuit, from `after` in `shard`. */
export interface WebhookDrainMessage {
  account_id: number;
  webhook_id: number;
  drain_for: number;
  shard: number;
  after?: string;
  /** The second pass, after `drainSweepDelaySeconds`. */
  sweep?: boolean;
}

function probeDelayAfter(probes: number): number {
  return probeDelaysSeconds[Math.min(probes, probeDelaysSeconds.length - 1)] as number;
}

/** Queue webhook messages of one account (its message group) to arrive `delayMs` from now, at most SQS's longest delay. */
export async function sendWebhookMessages(accountId: number, messages: unknown[], delayMs = 0): Promise<void> {
  const delaySeconds = Math.min(maxDelaySeconds, Math.max(0, Math.ceil(delayMs / 1000)));
  await sendMessages('webhooks', messages, { group: String(accountId), delaySeconds });
}

async function bookProbe(accountId: number, webhookId: number, at: number, now: number): Promise<void> {
  const probe: WebhookProbeMessage = { account_id: accountId, webhook_id: webhookId, probe_at: at };
  await sendWebhookMessages(accountId, [probe], at - now);
}

/** The webhook failed `failures` times in a row: open its circuit (once, whoever gets there first) with its first probe booked. */
export async function openCircuitFor(accountId: number, webhookId: number, failures: number, detail: string, now: number): Promise<void> {
  const probeAt = now + probeDelayAfter(0) * 1000;
  // The probe goes first: when the circuit then does not open here (another deliverer opened it),
  // the probe finds another probe_at on the item and stops; the other order could lose the probe.
  await bookProbe(accountId, webhookId, probeAt, now);
  if (await openCircuit(accountId, webhookId, now, probeAt)) {
    log.warn('webhook circuit opened; deliveries parked', { accountId, webhookId, failures, detail, firstProbeInSeconds: probeDelayAfter(0) });
  }
}

/** Keep a delivery in the table while its webhook's circuit is open; `circuit`, as read, tells whether its probe was lost. */
export async function parkWhileOpen(delivery: IdentifiedDelivery, now: number, circuit?: WebhookCircuit): Promise<void> {
  const { not_before: _due, ...parked } = delivery;
  await parkDelivery(delivery.account_id, delivery.webhook_id, delivery.delivery_id, JSON.stringify(parked), now);
  const due = circuit?.nextProbeAt;
  if (circuit === undefined || due === undefined || now - due <= lostProbeMs) return;
  const next = now + probeDelayAfter(circuit.probes) * 1000;
  await bookProbe(delivery.account_id, delivery.webhook_id, next, now);
  if (await claimProbe(delivery.account_id, delivery.webhook_id, due, next, now)) {
    log.warn('webhook probe was lost; booked again', { accountId: delivery.account_id, webhookId: delivery.webhook_id, dueAt: new Date(due).toISOString() });
  }
}

/** Remove expired parked deliveries, saying how many were given up. */
async function dropExpired(accountId: number, webhookId: number, parked: readonly ParkedDelivery[]): Promise<void> {
  const expired = parked.filter((delivery) => delivery.expired);
  if (expired.length === 0) return;
  await removeParkedDeliveries(expired.map((delivery) => delivery.key));
  log.warn('parked webhook deliveries expired; given up', { accountId, webhookId, count: expired.length });
}

/** The first live parked delivery, shard by shard, each oldest first; expired ones met on the way are removed. */
async function firstParked(accountId: number, webhookId: number, now: number): Promise<{ delivery: ParkedDelivery; message: IdentifiedDelivery } | undefined> {
  for (let shard = 0; shard < parkedDeliveryShards; shard++) {
    let after: string | undefined;
    for (;;) {
      const { parked, more } = await parkedDeliveries(accountId, webhookId, shard, { limit: 25, now, ...(after === undefined ? {} : { after }) });
      await dropExpired(accountId, webhookId, parked);
      const live = parked.find((delivery) => !delivery.expired);
      if (live) return { delivery: live, message: JSON.parse(live.body) as IdentifiedDelivery };
      if (!more || parked.length === 0) break;
      after = parked[parked.length - 1]?.key.sk;
    }
  }
  return undefined;
}

async function startDrain(accountId: number, webhookId: number, closedBy: number): Promise<void> {
  const drain: WebhookDrainMessage = { account_id: accountId, webhook_id: webhookId, drain_for: closedBy, shard: 0 };
  await sendWebhookMessages(accountId, [drain]);
}

/**
 * A probe message: when it is the open circuit's due probe, book the next one, then try the oldest
 * parked delivery. A 2xx closes the circuit and starts the drain; anything else leaves it open.
 */
export async function runProbe(probe: WebhookProbeMessage): Promise<void> {
  const { account_id: accountId, webhook_id: webhookId, probe_at: due } = probe;
  const circuit = await getCircuit(accountId, webhookId, { consistent: true });
  if (circuit.openSince === undefined) {
    // This probe closed the circuit, and its run ended before it queued the drain (this is that message received again).
    if (circuit.closedBy === due) await startDrain(accountId, webhookId, due);
    return;
  }
  if (circuit.nextProbeAt !== due) return;
  const now = currentTime().getTime();
  if (due > now) {
    await bookProbe(accountId, webhookId, due, now);
    return;
  }
  const webhook = await getStoredWebhook(accountId, webhookId);
  if (!webhook) return;
  const next = now + probeDelayAfter(circuit.probes + 1) * 1000;
  await bookProbe(accountId, webhookId, next, now);
  if (!(await claimProbe(accountId, webhookId, due, next, now))) return;
  const oldest = await firstParked(accountId, webhookId, now);
  if (oldest) {
    const outcome = await attemptDelivery(webhook, oldest.message.payload, oldest.message.delivery_id);
    if (!outcome.delivered) {
      log.info('webhook probe failed; circuit stays open', { accountId, webhookId, detail: outcome.detail, nextProbeInSeconds: (next - now) / 1000 });
      return;
    }
    await removeParkedDeliveries([oldest.delivery.key]);
  }
  // With nothing parked (all expired) nothing was tried: one more failure opens the circuit again.
  if (!(await closeCircuit(accountId, webhookId, due, next, oldest ? 0 : circuitFailureThreshold - 1, now))) return;
  log.info('webhook circuit closed; parked deliveries queued again', { accountId, webhookId, openForSeconds: Math.round((now - (circuit.openSince ?? now)) / 1000) });
  await startDrain(accountId, webhookId, due);
}

/** A drain message: queue one page of parked deliveries again, then hand over to the next page, shard or sweep. */
export async function runDrain(drain: WebhookDrainMessage): Promise<void> {
  const { account_id: accountId, webhook_id: webhookId, drain_for: closedBy, shard } = drain;
  const circuit = await getCircuit(accountId, webhookId, { consistent: true });
  // Open again (the probes take over), or closed since by a later probe with a drain of its own.
  if (circuit.openSince !== undefined || circuit.closedBy !== closedBy) return;
  const now = currentTime().getTime();
  const { parked, more } = await parkedDeliveries(accountId, webhookId, shard, { limit: drainPageSize, now, ...(drain.after === undefined ? {} : { after: drain.after }) });
  const live = parked.filter((delivery) => !delivery.expired);
  await sendWebhookMessages(accountId, live.map((delivery) => JSON.parse(delivery.body) as IdentifiedDelivery));
  await removeParkedDeliveries(live.map((delivery) => delivery.key));
  await dropExpired(accountId, webhookId, parked);
  const last = parked[parked.length - 1]?.key.sk;
  const { after: _after, ...from } = drain;
  if (more && last !== undefined) {
    await sendWebhookMessages(accountId, [{ ...from, after: last }]);
  } else if (shard + 1 < parkedDeliveryShards) {
    await sendWebhookMessages(accountId, [{ ...from, shard: shard + 1 }]);
  } else if (!drain.sweep) {
    await sendWebhookMessages(accountId, [{ ...from, shard: 0, sweep: true }], drainSweepDelaySeconds * 1000);
  }
}
