// Each function's time limit, in seconds: what the stack deploys (stack/service-functions.ts) and what
// the local runtime tells the same handlers through `getRemainingTimeInMillis` (local/lambda-context.ts),
// so a delivery, an import chunk or a dispatch hands over to a fresh message or run at the same point
// on a laptop as on Lambda.
import { httpFamilies } from '../shared/routes';

/**
 * API Gateway gives up on an integration after 30 s; an HTTP function stops first so the client gets
 * our answer (the request pipeline answers 503 `deadlineReserveMs` before this: shared/http/pipeline.ts).
 */
export const httpTimeoutSeconds = 29;

/** A queue consumer not listed below. */
export const defaultConsumerTimeoutSeconds = 5 * 60;

/** Event functions by name. */
export const eventTimeoutSeconds: Readonly<Record<string, number>> = {
  // Stops early to hand over to a resume schedule, so a long timeout costs nothing and saves hand-overs.
  'send-dispatch': 5 * 60,
  // Ten messages of up to 50 recipients each at the per-container send rate, with room for backoff.
  'send-deliver': 5 * 60,
  'ses-events': 30,
  // Fired every minute: finish before the next run starts.
  'automation-steps': 55,
  // Every 15 minutes: refreshes the pending sender domains and unverified senders from SES, a few
  // hundred throttled identity calls at most.
  'identity-refresh': 5 * 60,
  // Looks at the few sends that stopped progressing and books their resumption: a small, short run.
  'send-watchdog': 60,
  // Starts one background job and books the next day's run: two writes and a schedule.
  'segment-windows': 30,
  // Mails an account's owed confirmation mails one by one, within its hourly budget (1,000 by default).
  'opt-in-mail': 5 * 60,
  // Parses CSV chunks; a chunk that runs long hands over to a continuation message.
  'contact-import': 5 * 60,
  // Ten deliveries of at most 5 s each, one after another, with room to spare; it waits, it does not compute.
  'webhook-deliver': 90,
};

const httpFamilyNames: ReadonlySet<string> = new Set(httpFamilies);

/** The time limit of the function (an HTTP family or an event function) named `name`. */
export function functionTimeoutSeconds(name: string): number {
  if (httpFamilyNames.has(name)) return httpTimeoutSeconds;
  return eventTimeoutSeconds[name] ?? defaultConsumerTimeoutSeconds;
}
