// One webhook delivery: the event as a JSON object POSTed to the webhook's URL, signed with its
// secret. A 2xx answer is delivered; anything else (another status, a timeout, a refused address,
// a connection error) is a failure, retried on the backoff below. Redirects are never
// followed (a 3xx is a failure), and the response body is never read beyond draining it.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { config } from '../config';
import { decryptSecret, isLegacySealed, legacyWebhookSignature, webhookSignature } from '../webhooks/secret';
import { isPublicAddress, webhookLookup } from '../webhooks/target';
import type { StoredWebhook, WebhookEvent } from '../webhooks/repository';

/** The JSON body of one delivery: one event per request (never a batch array). */
export interface WebhookPayload {
  event: WebhookEvent;
  email: string;
  /** The single send's utr, or the automation's for mail of an automation step. */
  utr: string;
  /** The link clicked; click events only. */
  url?: string;
  /** Open and click events only: whether a machine opened or a bot clicked (statistics/engagement-rules.ts). */
  machine?: boolean;
  /** When the event happened, ISO 8601 UTC. */
  timestamp: string;
}

/** How long one delivery may take, connection to last response byte. */
export const deliveryTimeoutMs = 5_000;

/**
 * Seconds a failed delivery waits before its next attempt, by attempt number (the first retry waits
 * one minute). Eight attempts over 32 h 36 min in all; the eighth failure gives the delivery up.
 */
export const retryDelaysSeconds = [60, 300, 1_800, 7_200, 21_600, 43_200, 43_200] as const;

/** Attempts before a delivery is given up on: one more than the waits. */
export const maxDeliveryAttempts = retryDelaysSeconds.length + 1;

/** The wait after failed attempt `attempt` (1-based); undefined after the last one. */
export function retryDelayAfter(attempt: number): number | undefined {
  return retryDelaysSeconds[attempt - 1];
}

export interface DeliveryOutcome {
  delivered: boolean;
  /** The receiver's status, or why there was none. */
  detail: string;
}

export interface DeliveryRequest {
  url: string;
  secret: string;
  payload: WebhookPayload;
  /** The queue message's id: the same on every attempt, so a receiver can drop a repeat. */
  deliveryId: string;
  /** Unix seconds of this attempt (signed with the body, so a receiver can refuse old replays). */
  now?: number;
  /** How long the attempt may take; `deliveryTimeoutMs` unless given. */
  timeoutMs?: number;
}

/**
 * The body and the headers of one attempt: the Standard Webhooks headers (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), and the same as `x-webhook-*` with the signature of
 * before, deprecated, for receivers not yet moved to the standard ones.
 */
export function signedRequest(request: DeliveryRequest): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(request.payload);
  const timestamp = String(request.now ?? Math.floor(Date.now() / 1000));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'email-campaign-webhooks/1',
      'webhook-id': request.deliveryId,
      'webhook-timestamp': timestamp,
      'webhook-signature': webhookSignature(request.secret, request.deliveryId, timestamp, body),
      'x-webhook-id': request.deliveryId,
      'x-webhook-timestamp': timestamp,
      'x-webhook-signature': legacyWebhookSignature(request.secret, timestamp, body),
    },
  };
}

/** POST one event; never throws, the outcome says what happened. */
export function deliverWebhook(request: DeliveryRequest): Promise<DeliveryOutcome> {
  const url = new URL(request.url);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // A literal address connects without a lookup, so it is checked here (saved URLs were checked too).
  if (config().runtime !== 'local' && isIP(host) && !isPublicAddress(host)) {
    return Promise.resolve({ delivered: false, detail: `refused non-public address ${host}` });
  }
  const { body, headers } = signedRequest(request);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const lookup = webhookLookup();
  return new Promise((resolve) => {
    let settled = false;
    const timeoutMs = request.timeoutMs ?? deliveryTimeoutMs;
    const timer = setTimeout(() => {
      // Settled here, whatever events the destroyed request still emits (or does not).
      finish({ delivered: false, detail: `no complete answer within ${timeoutMs} ms` });
      outgoing.destroy();
    }, timeoutMs);
    const finish = (outcome: DeliveryOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const outgoing = send(url, { method: 'POST', headers, ...(lookup ? { lookup } : {}), agent: false }, (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      // The body is ignored, but drained so the socket closes cleanly.
      response.resume();
      response.on('end', () => finish({ delivered: status >= 200 && status < 300, detail: `HTTP ${status}` }));
      response.on('error', (error) => finish({ delivered: false, detail: error.message }));
    });
    outgoing.on('error', (error) => finish({ delivered: false, detail: error.message }));
    outgoing.end(body);
  });
}

/**
 * One attempt of a delivery to a stored webhook. A secret still sealed under the token-signing key
 * fails it, as a receiver that is down would, so its deliveries go out once the operator has run the
 * re-seal (docs/operations.md).
 */
export function attemptDelivery(webhook: StoredWebhook, payload: WebhookPayload, deliveryId: string): Promise<DeliveryOutcome> {
  if (isLegacySealed(webhook.encrypted_secret)) {
    return Promise.resolve({ delivered: false, detail: 'secret sealed under the token-signing key: run npm run webhooks:reseal (docs/operations.md)' });
  }
  return deliverWebhook({ url: webhook.url, secret: decryptSecret(webhook.encrypted_secret), payload, deliveryId });
}
