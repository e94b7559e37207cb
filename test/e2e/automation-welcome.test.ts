// A welcome automation on the whole local stack, through the HTTP API (the sender's confirmation
// aside): set live with one `instantly` step, a contact added by contacts/add gets the mail within
// seconds, run by the local scheduler's automation-steps job.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { sleep } from '../support/local-stack';
import { callApi, useTestStack, waitForMails, type Form } from '../support/stack-client';

const stack = useTestStack();
const api = <T>(path: string, form?: Form) => callApi<T>(stack(), path, form);

it('mails the first step of a live welcome automation within seconds of contacts/add', async () => {
  await api('contacts-type/add', { name: 'Welcome readers' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Welcome readers') as { id: number }).id;
  await api('unsubscribes-groups/save', { group_name: 'Welcome', description: 'Welcome series', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme', from_email: 'hello@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'Hello' });
  const { senders } = await api<{ senders: { id: number; from_email: string }[] }>('senders');
  const sender = senders[0] as { id: number; from_email: string };
  await confirmSenderAddress(stack().demoAccount.account_id, sender.id, sender.from_email);

  const { utr } = await api<{ utr: string }>('automations/create', {
    type: 'welcome',
    automation_for: `contacts_${contactTypeId}`,
    automation_name: 'Welcome',
    unsubscribe_group_id: (unsubscribesGroups[0] as { id: number }).id,
  });
  await api('automations/schedule/create', { utr, sender_id: sender.id, subject: 'Welcome, ((first_name))', waiting_period: 0, waiting_type: 'instantly', template_id: 2, preview_img: 'welcome.svg' });
  await api(`automations/set-live?utr=${utr}`);

  await api('contacts/add', { contact_type_id: contactTypeId, first_name: 'Ada', last_name: 'Reader', email: 'ada@welcome.example', country: 233 });
  // No timing assertion here (speed is measured by the benchmarks): the runner is booked at once, so
  // the mail normally lands within a second or two; the deadline only absorbs a loaded CI machine.
  const mails = await waitForMails(stack(), ['ada@welcome.example'], 1, 45_000);
  expect(mails.map((mail) => mail.subject)).toEqual(['Welcome, Ada']);

  // The runner counts a step's mails when its run ends, a moment after the mail reached the sink.
  let triggered = 0;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
    triggered = (await api<{ automation: { total_triggered: number } }>(`automations/details?utr=${utr}`)).automation.total_triggered;
    if (triggered > 0) break;
  }
  expect(triggered).toBe(1);
}, 90_000);
