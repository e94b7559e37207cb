// Click tracking on the whole local stack, through HTTP only (the sender's confirmation aside): a send
// to 2 contacts, the tracked link read from a mail in the sink and followed through the gateway (302 to
// the original URL), and the clicks in single-send/stats.
import { confirmSenderAddress } from '../../shared/senders/repository';
import type { SinkMail } from '../support/sending';
import { callApi, statsOnceDelivered, useTestStack, waitForMails, type Form } from '../support/stack-client';

const stack = useTestStack();
const api = <T>(path: string, form?: Form) => callApi<T>(stack(), path, form);

/** The tracked link of the mail's "Shop" link, entities undone. */
function shopLink(mail: SinkMail | undefined): string {
  const href = /<a href="([^"]+)">Shop the sale<\/a>/.exec(String(mail?.body.html))?.[1];
  if (!href) throw new Error('the mail has no Shop link');
  return href.replace(/&amp;/g, '&');
}

const follow = (link: string) => fetch(link, { redirect: 'manual' });

test('a link followed from a real mail redirects to its target and counts in single-send/stats', async () => {
  // Prepare: two contacts, a verified sender, a group.
  await api('contacts-type/add', { name: 'Shoppers' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Shoppers') as { id: number }).id;
  const people = ['ada@shoppers.example', 'bob@shoppers.example'];
  for (const email of people) await api('contacts/add', { contact_type_id: contactTypeId, first_name: 'Shopper', last_name: 'Reader', email, country: 233 });
  await api('unsubscribes-groups/save', { group_name: 'Offers', description: 'Our offers', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme Shop', from_email: 'shop@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'Shop' });
  const sender = (await api<{ senders: { id: number; from_email: string }[] }>('senders')).senders[0] as { id: number; from_email: string };
  await confirmSenderAddress(stack().demoAccount.account_id, sender.id, sender.from_email);

  // Act: send, read each mail's tracked link from the sink, follow Ada's twice and Bob's once.
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 1,
    template_html: '<html><body><p>Hello ((first_name))</p><p><a href="https://shop.example/sale?from=mail">Shop the sale</a></p></body></html>',
    sender_id: sender.id,
    unsubscribe_group_id: (unsubscribesGroups[0] as { id: number }).id,
    single_send_name: 'Sale',
    subject: 'Our sale',
    preheader: 'Half price',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
  });
  const mails = await waitForMails(stack(), people, 2);
  const [ada, bob] = people.map((email) => shopLink(mails.find((mail) => mail.destination.to[0] === email)));
  // People click a while after the mail came: within 2 seconds of the send only scanners do (engagement-rules.ts).
  await new Promise((done) => setTimeout(done, 2_100));
  const first = await follow(ada as string);
  await follow(ada as string);
  await follow(bob as string);

  // Assess
  expect(first.status).toBe(302);
  expect(first.headers.get('location')).toBe('https://shop.example/sale?from=mail');
  expect(new URL(ada as string).pathname).toBe(new URL(`${stack().publicLinksUrl}public/click`).pathname);
  expect(await statsOnceDelivered(stack(), utr, 2)).toEqual({
    stats: { audience: 2, processed: 2, delivered: 2, opens: 0, unique_opens: 0, machine_opens: 0, clicks: 3, unique_clicks: 2, bot_clicks: 0, bounces: 0, complaints: 0, unsubscribes: 0, uncertain: 0 },
    links: [{ url: 'https://shop.example/sale?from=mail', clicks: 3, unique_clicks: 2 }],
  });
}, 90_000);
