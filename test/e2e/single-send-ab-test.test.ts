// An A/B subject test on the whole local stack, through HTTP only (the sender's confirmation aside):
// 200 contacts, two subjects, 20% in the test and a 1-minute wait. The second subject's group opens
// more (pixels fetched as a desktop browser), so after the wait, on the local scheduler's real clock,
// the other 160 get the second subject; every contact is mailed exactly once, and the details show
// the variants and the winner.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { sleep } from '../support/local-stack';
import { callApi, eventually, mailsInSink, openTracked, pixelOf, postJson, useTestStack, type Form } from '../support/stack-client';

const stack = useTestStack();
const api = <T>(path: string, form?: Form) => callApi<T>(stack(), path, form);
const sinkMails = () => mailsInSink(stack());

interface Details {
  status: number;
  subject: string;
  ab_test: { status: string | null } & Record<string, unknown>;
  [field: string]: unknown;
}

const details = async (utr: string) => (await api<{ singleSend: Details[] }>(`single-send/details?utr=${utr}`)).singleSend[0] as Details;

/** Poll the details until `done` says so; generous: a loaded machine may be slow, the wait is a minute on the real clock. */
function detailsWhen(utr: string, done: (send: Details) => boolean, minutes = 6): Promise<Details> {
  return eventually(() => details(utr), done, { timeoutMs: minutes * 60_000, everyMs: 500 });
}

test('200 contacts, 2 subjects, 20% tested for a minute: the subject more people opened goes to the other 160, everyone mailed once', async () => {
  // Prepare: 200 contacts, a verified sender, a group.
  await api('contacts-type/add', { name: 'Spring list' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Spring list') as { id: number }).id;
  const emails = Array.from({ length: 200 }, (_, i) => `reader${String(i).padStart(3, '0')}@spring.example`);
  const { job_id: jobId } = await postJson<{ job_id: number }>(stack(), 'contacts/bulk-upsert', { contact_type_id: contactTypeId, contacts: emails.map((email) => ({ email, first_name: 'Reader', country: 233 })) });
  for (let job = await api<{ job: { status: string } }>(`jobs/details?id=${jobId}`); ['queued', 'running'].includes(job.job.status); job = await api(`jobs/details?id=${jobId}`)) await sleep(200);
  await api('unsubscribes-groups/save', { group_name: 'News', description: 'Our news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme', from_email: 'news@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'News' });
  const sender = (await api<{ senders: { id: number; from_email: string }[] }>('senders')).senders[0] as { id: number; from_email: string };
  await confirmSenderAddress(stack().demoAccount.account_id, sender.id, sender.from_email);
  const [first, second] = ['Spring is here', 'Our spring range, 20% off'];

  // Act 1: the send; its test share goes out and it waits.
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 1,
    template_html: '<html><body><p>Hello ((first_name))</p><p><a href="https://shop.example/spring">See the range</a></p></body></html>',
    sender_id: sender.id,
    unsubscribe_group_id: (unsubscribesGroups[0] as { id: number }).id,
    single_send_name: 'Spring',
    subject: 'Spring news',
    preheader: 'This week',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
    'ab_subjects[0]': first,
    'ab_subjects[1]': second,
    ab_test_percent: 20,
    ab_wait_minutes: 1,
  });
  const waiting = await detailsWhen(utr, (send) => send.ab_test.status === 'waiting' || send.ab_test.status === 'winner_sent');
  const testShare = (await sinkMails()).filter((mail) => emails.includes(mail.destination.to[0] as string));

  // Act 2: people open 3 of the first subject's mails and 12 of the second's.
  const opened = [...testShare.filter((mail) => mail.subject === first).slice(0, 3), ...testShare.filter((mail) => mail.subject === second).slice(0, 12)];
  for (const mail of opened) expect((await openTracked(pixelOf(mail.body.html) as string)).status).toBe(200);
  const done = await detailsWhen(utr, (send) => send.status === 3);

  // Assess
  expect(waiting).toMatchObject({ status: 2, ab_test: { status: 'waiting' } });
  expect(testShare.map((mail) => mail.subject).sort()).toEqual([...Array<string>(20).fill(second), ...Array<string>(20).fill(first)]);
  const mails = (await sinkMails()).filter((mail) => emails.includes(mail.destination.to[0] as string));
  const tested = new Set(testShare.map((mail) => mail.destination.to[0]));
  expect(tested.size).toBe(40);
  // Each contact exactly once; the 160 outside the test share with the second subject.
  expect(mails.map((mail) => mail.destination.to[0]).sort()).toEqual([...emails].sort());
  expect(mails.filter((mail) => !tested.has(mail.destination.to[0])).map((mail) => mail.subject)).toEqual(Array<string>(160).fill(second));
  expect(done).toMatchObject({ status: 3, subject: second, triggered: 200, unique_opens: 15 });
  expect(done.ab_test).toEqual({
    status: 'winner_sent',
    metric: 'opens',
    percent: 20,
    wait_minutes: 1,
    variants: [
      { subject: first, recipients: 20, unique_opens: 3, unique_clicks: 0 },
      { subject: second, recipients: 20, unique_opens: 12, unique_clicks: 0 },
    ],
    winner_index: 1,
    decided_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/),
  });
}, 600_000);
