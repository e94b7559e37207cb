// The summary mail a completed single send leaves the notification recipients: never to an address
// the account suppressed (global unsubscribe, hard bounce, complaint), and counted against the
// account's hourly system-mail budget, shared with sender verification mail; past it the summary is
// skipped and the send still completes.
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as senders } from '../../functions/senders/handler';
import { resetConfig } from '../../shared/config';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { addNotificationRecipient } from '../../shared/notification-recipients/repository';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { getSingleSend } from '../../shared/single-sends/repository';
import { addBouncedAddress } from '../../shared/suppressions/bounces';
import { addGlobalUnsubscribe } from '../../shared/suppressions/unsubscribes';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, multipart, type Keys } from '../support/events';
import { senderInput } from '../support/senders';
import { contactFields, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
}, 120_000);

afterEach(() => {
  resetClock();
  delete process.env.SYSTEM_MAILS_PER_HOUR;
  resetConfig();
});

afterAll(async () => {
  await env.stop();
});

/** Run the clock from one second past the next full hour, so one test's mail all falls in one hourly window. */
function startOfAnHour(): void {
  const now = Date.now();
  const offset = Math.ceil(now / 3_600_000) * 3_600_000 + 1000 - now;
  setClock(() => new Date(Date.now() + offset));
}

/** An account with one contact to mail and the given notification recipients (in id order). */
async function accountWithOwners(owners: string[]): Promise<{ keys: Keys & { account_id: number }; typeId: number }> {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Readers');
  const tag = Math.random().toString(36).slice(2, 8);
  await addContact(keys.account_id, contactFields(type.id, `reader-${tag}@example.com`), {});
  for (const owner of owners) await addNotificationRecipient(keys.account_id, { email_address: owner, email_owner: 'Owner' });
  return { keys, typeId: type.id };
}

async function sendToEveryone(accountId: number, typeId: number): Promise<void> {
  const send = await readySend(accountId, { recipient_id: [{ id: String(typeId), table: 'contacts_' }] });
  await dispatchHandler({ accountId, utr: send.utr });
  await localQueueIdle();
  expect((await getSingleSend(accountId, send.utr)).status).toBe(3);
}

function addresses(names: string[]): string[] {
  const tag = Math.random().toString(36).slice(2, 8);
  return names.map((name) => `${name}-${tag}@example.com`);
}

test('goes only to notification recipients who are not unsubscribed, bounced or complaining', async () => {
  const [kept, unsubscribed, bounced, complaining] = addresses(['kept', 'unsubscribed', 'bounced', 'complaining']) as [string, string, string, string];
  const { keys, typeId } = await accountWithOwners([kept, unsubscribed, bounced, complaining]);
  await addGlobalUnsubscribe(keys.account_id, unsubscribed.toUpperCase());
  await addBouncedAddress(keys.account_id, bounced, 'bounce', 'General');
  await addBouncedAddress(keys.account_id, complaining, 'complaint', 'abuse');
  // Act
  await sendToEveryone(keys.account_id, typeId);
  // Assess
  const summaries = await mailsTo(env.sink, [kept, unsubscribed, bounced, complaining]);
  expect(summaries.map((mail) => mail.destination.to)).toEqual([[kept]]);
  expect(summaries[0]?.subject).toBe('Single send completed: Spring news');
});

test('counts against the hourly system-mail budget shared with verification mail, and past it is skipped', async () => {
  process.env.SYSTEM_MAILS_PER_HOUR = '3';
  resetConfig();
  startOfAnHour();
  const owners = addresses(['first', 'second', 'third']);
  const { keys, typeId } = await accountWithOwners(owners);
  // One verification mail takes one of the three.
  const saved = await senders(apiEvent({ method: 'POST', path: 'sender/save', headers: authHeaders(keys), body: multipart(senderInput()) }));
  expect(saved.statusCode).toBe(200);
  // Act
  await sendToEveryone(keys.account_id, typeId);
  // Assess: the first two owners (in id order) get it; the send completed all the same.
  const summaries = await mailsTo(env.sink, owners);
  expect(summaries.map((mail) => mail.destination.to[0])).toEqual(owners.slice(0, 2));
});
