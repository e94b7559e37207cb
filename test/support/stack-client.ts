// The e2e tests' client for the local stack: the API as the demo account, the mail sink, tracked
// links opened the way a person's browser would, and the hooks that start and stop the stack.
import { startTestStack, type TestStack } from './local-stack';
import type { SinkMail } from './sending';

/** A form as the API takes it; numbers are sent as their decimal text. */
export type Form = Record<string, string | number>;

/**
 * A desktop Safari's User-Agent: opens and clicks with it count as a person's, where Apple's privacy
 * proxy, known scanners and an empty User-Agent count as machines (shared/statistics/engagement-rules.ts).
 */
export const desktopBrowser = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

/**
 * Starts the stack before this file's tests and stops it after them; returns a getter for it, to be
 * read inside hooks and tests. `env` is set for the stack's life, since the stack reads its settings
 * from the environment when it starts. The hooks' limits are generous: a cold start on a loaded
 * machine takes a while.
 */
export function useTestStack(options: { env?: Record<string, string> } & Parameters<typeof startTestStack>[0] = {}): () => TestStack {
  const { env = {}, ...stackOptions } = options;
  let stack: TestStack | undefined;
  beforeAll(async () => {
    Object.assign(process.env, env);
    stack = await startTestStack(stackOptions);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    for (const name of Object.keys(env)) delete process.env[name];
  }, 60_000);
  return () => {
    if (!stack) throw new Error('The test stack is not running: read it inside a hook or a test');
    return stack;
  };
}

async function answerOf<T>(path: string, response: Response): Promise<T> {
  const answer = (await response.json()) as { status: string; message: T };
  // Throwing here makes a failed setup step fail at that step, with the API's own message.
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer.message;
}

/**
 * Calls the API as the demo account and returns the envelope's `message`: a GET without a form, a
 * POST of the form (urlencoded, or multipart/form-data when `multipart`) with one. Throws on any
 * status but 200.
 */
export async function callApi<T>(stack: TestStack, path: string, form?: Form, { multipart = false } = {}): Promise<T> {
  const entries = Object.entries(form ?? {}).map(([name, value]): [string, string] => [name, String(value)]);
  const body = multipart ? entries.reduce((data, [name, value]) => (data.append(name, value), data), new FormData()) : new URLSearchParams(entries);
  const response = await fetch(`${stack.apiUrl}${path}`, { method: form ? 'POST' : 'GET', headers: stack.demoHeaders, ...(form ? { body } : {}) });
  return answerOf<T>(path, response);
}

/** POSTs `json` to the API as the demo account and returns the envelope's `message`; throws on any status but 200. */
export async function postJson<T>(stack: TestStack, path: string, json: unknown): Promise<T> {
  const response = await fetch(`${stack.apiUrl}${path}`, { method: 'POST', headers: { ...stack.demoHeaders, 'content-type': 'application/json' }, body: JSON.stringify(json) });
  return answerOf<T>(path, response);
}

/** Every mail the stack's SES sink took so far. */
export async function mailsInSink(stack: TestStack): Promise<SinkMail[]> {
  return ((await (await fetch(stack.mailStoreUrl)).json()) as { emails: SinkMail[] }).emails;
}

/**
 * Asks `read` until `done` holds for its answer, or `timeoutMs` passed; returns the last answer either
 * way, so the test's assertion shows what was there. The deadline only absorbs a loaded machine.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, { timeoutMs = 30_000, everyMs = 100 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resume) => setTimeout(resume, everyMs));
  }
}

/** The first mail the sink took for `address`, polled for up to `timeoutMs`; undefined if none came. */
export async function waitForMail(stack: TestStack, address: string, timeoutMs = 45_000): Promise<SinkMail | undefined> {
  const find = async () => (await mailsInSink(stack)).find((mail) => mail.destination.to[0] === address);
  return eventually(find, (mail) => mail !== undefined, { timeoutMs });
}

/** The sink's mails to `addresses` once there are `count` of them, or as many as came within `timeoutMs`. */
export async function waitForMails(stack: TestStack, addresses: readonly string[], count: number, timeoutMs = 45_000): Promise<SinkMail[]> {
  const filter = async () => (await mailsInSink(stack)).filter((mail) => addresses.includes(mail.destination.to[0] as string));
  return eventually(filter, (mails) => mails.length >= count, { timeoutMs });
}

/**
 * A send's single-send/stats once it completed and SES's delivery events counted at least `delivered`
 * (they may arrive after the send completed), or as they are after `timeoutMs`.
 */
export async function statsOnceDelivered(stack: TestStack, utr: string, delivered: number, timeoutMs = 30_000): Promise<unknown> {
  const details = async () => (await callApi<{ singleSend: { status: number; delivered: number }[] }>(stack, `single-send/details?utr=${utr}`)).singleSend[0];
  await eventually(details, (send) => send?.status === 3 && send.delivered >= delivered, { timeoutMs });
  return callApi(stack, `single-send/stats?utr=${utr}`);
}

/** The open-tracking pixel's URL in a mail's HTML (entities undone); undefined if it has none. */
export function pixelOf(html: string | undefined): string | undefined {
  return /<img src="([^"]+\/public\/open\?token=[^"]+)"/.exec(html ?? '')?.[1]?.replace(/&amp;/g, '&');
}

/** The tracked links in a mail's HTML in document order (entities undone), the hidden bot-trap link included. */
export function trackedLinksOf(html: string | undefined): string[] {
  return [...(html ?? '').matchAll(/<a [^>]*href="([^"]*\/public\/click\?[^"]*)"/g)].map((match) => (match[1] as string).replace(/&amp;/g, '&'));
}

/**
 * Requests a tracking URL as a browser would (a desktop one unless `userAgent` says otherwise), without
 * following the redirect, so the test sees the 302 and its target.
 */
export function openTracked(url: string, { method = 'GET', userAgent = desktopBrowser } = {}): Promise<Response> {
  return fetch(url, { method, redirect: 'manual', headers: { 'user-agent': userAgent } });
}
