// SES's mailbox simulator on the whole local stack (`npm start`), through the HTTP API only (the
// sender's confirmation aside): a send to 20 contacts of which 3 are `bounce+N@simulator.amazonses.com`
// puts those 3 on the suppression list, and the send's statistics count 3 bounces and 17 deliveries.
// A send to 100 contacts of which 10 bounce pauses itself (`paused_reason`), the 10 suppressed and
// counted, and `single/send/resume` mails the rest. The limits are the defaults (5% of the mails SES
// reported on, after 100 of them): the 100-contact send stops at its 6th bounce, since 6 of any 100 is
// over 5%; the 20-contact send's 3 bounces stop nothing. The stack fans out 25 recipients a batch and
// mails 25 a second, one batch at a time: the bounces in the second batch are counted while it is
// mailed, the pause stops it within about a second, and the third and fourth batches wait.
import { addContact } from '../../shared/audience/contact-service';
import { confirmSenderAddress } from '../../shared/senders/repository';
import { contactFields } from '../support/sending';
import { callApi, eventually, useTestStack, type Form } from '../support/stack-client';

const stack = useTestStack({ env: { SES_MAX_SEND_RATE: '25', DISPATCH_PAGE_SIZE: '25' }, queue: { concurrency: 1, batchSize: 1 } });
const api = <T>(path: string, form?: Form) => callApi<T>(stack(), path, form);

interface SuppressionView {
  email: string;
  type: string;
  reason: string | null;
}

interface SendStats {
  audience: number;
  processed: number;
  delivered: number;
  bounces: number;
  complaints: number;
}

/** The verified sender and the unsubscribe group every send here uses, made on first use. */
let sendParts: { senderId: number; groupId: number } | undefined;

async function parts(): Promise<{ senderId: number; groupId: number }> {
  if (sendParts) return sendParts;
  await api('unsubscribes-groups/save', { group_name: 'Newsletter', description: 'Monthly news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme News', from_email: 'news@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'News' });
  const { senders } = await api<{ senders: { id: number; from_email: string }[] }>('senders');
  const sender = senders[0] as { id: number; from_email: string };
  await confirmSenderAddress(stack().demoAccount.account_id, sender.id, sender.from_email);
  sendParts = { senderId: sender.id, groupId: (unsubscribesGroups[0] as { id: number }).id };
  return sendParts;
}

/** An immediate send to one contact type; its utr. */
async function sendTo(contactTypeId: number, name: string): Promise<string> {
  const { senderId, groupId } = await parts();
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 2,
    sender_id: senderId,
    unsubscribe_group_id: groupId,
    single_send_name: name,
    subject: 'Hello ((first_name))',
    preheader: 'Bounces welcome',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
  });
  return utr;
}

test('a send to 20 contacts, 3 of them bounce+N@simulator.amazonses.com: the 3 are suppressed, and the stats count 3 bounces and 17 deliveries', async () => {
  // Prepare: 17 readers and 3 simulator bounces in one contact type, an unsubscribe group and a verified sender.
  await api('contacts-type/add', { name: 'Simulated' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Simulated') as { id: number }).id;
  const bounces = [1, 2, 3].map((n) => `bounce+${n}@simulator.amazonses.com`);
  const readers = Array.from({ length: 17 }, (_, n) => `reader-${n}@readers.example`);
  const pending = [...readers, ...bounces];
  // A few at a time: 20 one after the other are most of this test's time on a busy machine.
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let email = pending.shift(); email; email = pending.shift()) {
        await api('contacts/add', { contact_type_id: contactTypeId, first_name: 'Pat', last_name: 'Reader', email, country: 233, city: 'Springfield' });
      }
    }),
  );
  // Act: an immediate send to the contact type.
  const utr = await sendTo(contactTypeId, 'Simulated news');

  // Assess: the suppression list holds exactly the 3 bounces, as hard bounces.
  const listed = await eventually(
    async () => (await api<{ suppressions: SuppressionView[] }>('suppressions')).suppressions,
    (suppressions) => suppressions.length >= 3,
  );
  expect(listed.map(({ email, type, reason }) => ({ email, type, reason }))).toEqual(bounces.map((email) => ({ email, type: 'bounce', reason: 'General' })));
  // Assess: once all 20 are processed, 3 bounces and 17 deliveries (a bounce is never delivered).
  const { stats } = await eventually(
    () => api<{ stats: SendStats }>(`single-send/stats?utr=${utr}`),
    ({ stats: now }) => now.processed === 20 && now.bounces === 3 && now.delivered >= 17,
  );
  expect(stats).toMatchObject({ audience: 20, processed: 20, delivered: 17, bounces: 3, complaints: 0 });
}, 90_000);

test('a send to 100 contacts, 10 of them bounce+N@simulator.amazonses.com: it pauses itself with paused_reason, the 10 are suppressed and counted; resume mails the rest', async () => {
  // Prepare: 25 readers, then the 10 bounces (the audience goes in contact id order), then 65 readers,
  // added in-process (100 API calls would be most of this test's time).
  await api('contacts-type/add', { name: 'Reputation' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Reputation') as { id: number }).id;
  const bounces = Array.from({ length: 10 }, (_, n) => `bounce+reputation-${n}@simulator.amazonses.com`);
  const readers = Array.from({ length: 90 }, (_, n) => `kept-${n}@readers.example`);
  const add = (emails: string[]) =>
    Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let email = emails.shift(); email; email = emails.shift()) await addContact(stack().demoAccount.account_id, contactFields(contactTypeId, email), {});
      }),
    );
  await add(readers.slice(0, 25));
  for (const email of bounces) await addContact(stack().demoAccount.account_id, contactFields(contactTypeId, email), {});
  await add(readers.slice(25));

  // Act: an immediate send to the 100.
  const utr = await sendTo(contactTypeId, 'Risky news');

  // Assess: it pauses itself, saying why.
  type Details = { singleSend: { status: number; paused_reason?: string }[] };
  const paused = await eventually(
    async () => (await api<Details>(`single-send/details?utr=${utr}`)).singleSend[0],
    (send) => send?.paused_reason !== undefined,
  );
  expect(paused).toMatchObject({ status: 2, paused_reason: expect.stringMatching(/^Paused: \d+ of \d+ mails bounced \(\d+(\.\d+)?%, over the 5% limit\)\.$/) });
  // The batch being mailed stops within about a second of the pause, so most of its 10 bounces are
  // out by then (the 6th paused it), and the batches after it wait.
  const { stats: whilePaused } = await eventually(
    () => api<{ stats: SendStats }>(`single-send/stats?utr=${utr}`),
    ({ stats: now }) => now.bounces >= 6,
  );
  expect(whilePaused.bounces).toBeGreaterThanOrEqual(6);
  expect(whilePaused.processed).toBeLessThan(100);

  // Act: resume it.
  expect(await api<string>(`single/send/resume?utr=${utr}`)).toBe('Single send resumed; it continues with the recipients not yet mailed.');

  // Assess: it completes, every recipient processed once, still 10 bounces.
  const done = await eventually(
    () => api<{ stats: SendStats }>(`single-send/stats?utr=${utr}`),
    ({ stats: now }) => now.processed === 100 && now.delivered >= 90,
  );
  expect(done.stats).toMatchObject({ audience: 100, processed: 100, delivered: 90, bounces: 10 });
  expect((await api<Details>(`single-send/details?utr=${utr}`)).singleSend[0]?.status).toBe(3);
  // The 10 bounced addresses are on the suppression list.
  const listed = await eventually(
    async () => (await api<{ suppressions: SuppressionView[] }>('suppressions')).suppressions.filter((entry) => bounces.includes(entry.email)),
    (suppressions) => suppressions.length >= 10,
  );
  expect(listed.map((entry) => entry.email).sort()).toEqual([...bounces].sort());
}, 90_000);
