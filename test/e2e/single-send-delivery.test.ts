// Single sends on the whole local stack, through the HTTP API only (the sender's confirmation aside):
// an immediate send to 5 contacts puts exactly 3 mails in the sink, each delivery reaches a webhook
// subscribed to `delivered`, and a scheduled send fires at its time.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { waitFor } from '../support/local-stack';
import type { SinkMail } from '../support/sending';
import { callApi, eventually, mailsInSink, useTestStack, waitForMails, type Form } from '../support/stack-client';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const stack = useTestStack();
let receiver: WebhookReceiver;

const api = <T>(path: string, form?: Form) => callApi<T>(stack(), path, form);

async function sinkMails(addresses: readonly string[]): Promise<SinkMail[]> {
  return (await mailsInSink(stack())).filter((mail) => addresses.includes(mail.destination.to[0] as string));
}

async function sendDetails(utr: string) {
  const { singleSend } = await api<{ singleSend: { status: number; triggered: number; delivered: number; sent_at: string | null }[] }>(`single-send/details?utr=${utr}`);
  return singleSend[0];
}

/**
 * The send's details once it reached `status` and SES's delivery events counted at least `delivered`
 * (they may arrive after it completed), or as they are after `timeoutMs`.
 */
function detailsOnceStatus(utr: string, status: number, delivered = 0, timeoutMs = 30_000) {
  return eventually(() => sendDetails(utr), (details) => details?.status === status && details.delivered >= delivered, { timeoutMs });
}

const utcParts = (at: Date) => ({ date: at.toISOString().slice(0, 10), time: at.toISOString().slice(11, 19) });

interface Audience {
  contactTypeId: number;
  segmentId: number;
  groupId: number;
  senderId: number;
  people: Record<'ada' | 'unsubscribed' | 'grouped' | 'inSegment' | 'eve', string>;
}

let audience: Audience;

async function setUpAudience(): Promise<Audience> {
  await api('contacts-type/add', { name: 'Readers' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Readers') as { id: number }).id;
  await api('segment/save', { contact_type_id: contactTypeId, segment_name: 'Arlington', 'select_field[0]': 'city', 'select_operator[0]': 'is', 'value[0]': 'Arlington' });
  const { segments } = await api<{ segments: { id: number }[] }>('segment/list');
  await api('unsubscribes-groups/save', { group_name: 'Newsletter', description: 'Monthly news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  const people = {
    ada: 'ada@readers.example',
    unsubscribed: 'bob@readers.example',
    grouped: 'cy@readers.example',
    inSegment: 'dee@readers.example',
    eve: 'eve@readers.example',
  };
  for (const [name, email] of Object.entries(people)) {
    await api('contacts/add', { contact_type_id: contactTypeId, first_name: name, last_name: 'Reader', email, country: 233, city: name === 'inSegment' ? 'Arlington' : 'Springfield' });
  }
  const groupId = (unsubscribesGroups[0] as { id: number }).id;
  await api('global-unsubscribes/save', { email_address: people.unsubscribed });
  await api('unsubscribes-groups/manually-add', { unsubscribe_groups_id: groupId, email_address: people.grouped });
  await api('sender/save', {
    from_name: 'Acme News',
    from_email: 'news@acme.example',
    reply_to_email: 'support@acme.example',
    country_id: 233,
    company_address: '1 Main Street',
    nickname: 'News',
  });
  const { senders } = await api<{ senders: { id: number; from_email: string }[] }>('senders');
  const sender = senders[0] as { id: number; from_email: string };
  // The confirmation link's effect, without reading the verification mail.
  await confirmSenderAddress(stack().demoAccount.account_id, sender.id, sender.from_email);
  return { contactTypeId, segmentId: (segments[0] as { id: number }).id, groupId, senderId: sender.id, people };
}

function sendForm(overrides: Record<string, string | number> = {}): Record<string, string | number> {
  return {
    template_id: 2,
    sender_id: audience.senderId,
    unsubscribe_group_id: audience.groupId,
    single_send_name: 'Spring news',
    subject: 'Hello ((first_name))',
    preheader: 'What is new this spring',
    'recipient_id[0]': `contacts_${audience.contactTypeId}`,
    'recipient_id[1]': `segments_${audience.segmentId}`,
    schedule_type: 0,
    ...overrides,
  };
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  audience = await setUpAudience();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
}, 60_000);

test('an immediate send reaches exactly the 3 mailable contacts, completes with triggered 3, and each delivery reaches a delivered webhook', async () => {
  const addresses = Object.values(audience.people);
  await api('webhooks/save', { url: receiver.url('/deliveries'), 'events[0]': 'delivered' });
  const { utr } = await api<{ utr: string }>('single/send/create', sendForm());
  // How fast is measured by the benchmarks; here only what arrives.
  const mails = await waitForMails(stack(), addresses, 3);

  expect(mails.map((mail) => mail.destination.to[0]).sort()).toEqual([audience.people.ada, audience.people.eve, audience.people.inSegment].sort());
  for (const mail of mails) {
    expect(mail.subject).toMatch(/^Hello (ada|eve|inSegment)$/);
    expect(mail.headers?.find((header) => header.name === 'List-Unsubscribe')?.value).toMatch(/^<http:\/\/localhost:\d+\/links\/api\/public\/unsubscribe\?token=.+>$/);
    expect(mail.headers?.find((header) => header.name === 'List-Unsubscribe-Post')?.value).toBe('List-Unsubscribe=One-Click');
    expect(mail.body.html).toMatch(/<img src="http:\/\/localhost:\d+\/links\/api\/public\/open\?token=[^"]+" width="1" height="1" alt=""/);
    expect(mail.body.html).toContain('1 Main Street');
    expect(mail.body.html).toMatch(/href="http:\/\/localhost:\d+\/links\/api\/public\/preferences\?token=/);
  }
  // The pixel works through the gateway: fetching it counts an open.
  const pixel = /<img src="([^"]+\/public\/open\?token=[^"]+)"/.exec(mails[0]?.body.html ?? '')?.[1] as string;
  expect((await fetch(pixel.replace(/&amp;/g, '&'))).headers.get('content-type')).toBe('image/gif');
  const details = await detailsOnceStatus(utr, 3, 3);
  expect(details).toMatchObject({ status: 3, triggered: 3, delivered: 3, unique_opens: 1 });
  expect(details?.sent_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  // SES's delivery event of each mail (the sink's) reached the webhook, as it would deployed.
  await waitFor(() => receiver.received.length >= 3, 30_000, 'the three delivered webhooks');
  expect(receiver.received.map((request) => [request.path, JSON.parse(request.body)]).sort((a, b) => String(a[1].email).localeCompare(String(b[1].email)))).toEqual(
    [audience.people.ada, audience.people.inSegment, audience.people.eve]
      .sort()
      .map((email) => ['/deliveries', { event: 'delivered', email, utr, timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/) }]),
  );
  // No more mail arrives later (nobody twice).
  await new Promise((done) => setTimeout(done, 500));
  expect(await sinkMails(addresses)).toHaveLength(3);
}, 90_000);

test('a scheduled send a few seconds ahead fires at its time, not before', async () => {
  const addresses = Object.values(audience.people);
  // Far enough ahead that a slow create on a loaded machine still schedules it in the future.
  const at = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000);
  const { date, time } = utcParts(at);
  const scheduledMails = async () => (await sinkMails(addresses)).filter((mail) => mail.subject.startsWith('Scheduled for'));

  const { utr } = await api<{ utr: string }>('single/send/create', sendForm({ schedule_type: 1, schedule_date: date, schedule_time: time, subject: 'Scheduled for ((first_name))' }));
  await new Promise((done) => setTimeout(done, Math.max(0, at.getTime() - Date.now() - 1_000)));
  expect(await scheduledMails()).toHaveLength(0);
  expect((await sendDetails(utr))?.status).toBe(1);
  await waitForMails(stack(), addresses, 6);

  const scheduled = await scheduledMails();
  expect(scheduled.map((mail) => mail.subject).sort()).toEqual(['Scheduled for ada', 'Scheduled for eve', 'Scheduled for inSegment']);
  // The sink stamps each mail with the second it arrived.
  for (const mail of scheduled) expect((mail.at ?? 0) * 1000).toBeGreaterThanOrEqual(at.getTime());
  expect(await detailsOnceStatus(utr, 3)).toMatchObject({ status: 3, triggered: 3 });
}, 90_000);

test('single/send/create sent twice with one Idempotency-Key creates one send and mails each contact once', async () => {
  const addresses = Object.values(audience.people);
  const retriedMails = async () => (await sinkMails(addresses)).filter((mail) => mail.subject.startsWith('Retried for'));
  const create = async () => {
    const response = await fetch(`${stack().apiUrl}single/send/create`, {
      method: 'POST',
      headers: { ...stack().demoHeaders, 'Idempotency-Key': 'retry-after-a-dropped-connection' },
      body: new URLSearchParams(Object.entries(sendForm({ single_send_name: 'Retried news', subject: 'Retried for ((first_name))' })).map(([name, value]): [string, string] => [name, String(value)])),
    });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as { message: { utr: string } } };
  };

  const first = await create();
  const retry = await create();
  await waitForMails(stack(), addresses, 3 + 3 + 3);
  await detailsOnceStatus(first.body.message.utr, 3);
  await new Promise((done) => setTimeout(done, 500));

  expect([first.status, first.replayed, retry.status, retry.replayed]).toEqual([200, null, 200, 'true']);
  expect(retry.body).toEqual(first.body);
  const { singleSends } = await api<{ singleSends: { single_send_name: string }[] }>('single-send/list');
  expect(singleSends.filter((send) => send.single_send_name === 'Retried news')).toHaveLength(1);
  expect((await retriedMails()).map((mail) => mail.subject).sort()).toEqual(['Retried for ada', 'Retried for eve', 'Retried for inSegment']);
}, 90_000);
