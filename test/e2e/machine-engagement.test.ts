// Machine opens and bot clicks on the whole local stack, through HTTP only (the sender's confirmation
// aside): a send to one contact, its pixel fetched as Apple Mail Privacy Protection's proxy and as a
// desktop browser, a HEAD on its tracked link and a follow of its hidden link (both redirected), a
// person's click later on, and what single-send/stats counts of each.
import { confirmSenderAddress } from '../../shared/senders/repository';
import { callApi, desktopBrowser, openTracked, pixelOf, statsOnceDelivered, trackedLinksOf, useTestStack, waitForMail, type Form } from '../support/stack-client';

const stack = useTestStack();
const api = <T>(path: string, form?: Form) => callApi<T>(stack(), path, form);
const request = (url: string, userAgent: string, method = 'GET') => openTracked(url, { method, userAgent });

test("Apple's privacy proxy opens as a machine, a browser as a person; a HEAD and the hidden link are bot clicks, still redirected", async () => {
  // Prepare: a contact, a verified sender, a group, and a send with one link.
  await api('contacts-type/add', { name: 'Readers' });
  const { contactTypes } = await api<{ contactTypes: { id: number; name: string }[] }>('contacts-type');
  const contactTypeId = (contactTypes.find((type) => type.name === 'Readers') as { id: number }).id;
  const reader = 'ada@readers.example';
  await api('contacts/add', { contact_type_id: contactTypeId, first_name: 'Ada', last_name: 'Reader', email: reader, country: 233 });
  await api('unsubscribes-groups/save', { group_name: 'News', description: 'Our news', is_display: 1 });
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number }[] }>('unsubscribes-groups');
  await api('sender/save', { from_name: 'Acme', from_email: 'news@acme.example', reply_to_email: 'support@acme.example', country_id: 233, company_address: '1 Main Street', nickname: 'News' });
  const sender = (await api<{ senders: { id: number; from_email: string }[] }>('senders')).senders[0] as { id: number; from_email: string };
  await confirmSenderAddress(stack().demoAccount.account_id, sender.id, sender.from_email);
  const { utr } = await api<{ utr: string }>('single/send/create', {
    template_id: 1,
    template_html: '<html><body><p>Hello ((first_name))</p><p><a href="https://shop.example/news?from=mail">Read the news</a></p></body></html>',
    sender_id: sender.id,
    unsubscribe_group_id: (unsubscribesGroups[0] as { id: number }).id,
    single_send_name: 'News',
    subject: 'Our news',
    preheader: 'This week',
    'recipient_id[0]': `contacts_${contactTypeId}`,
    schedule_type: 0,
  });
  const html = String((await waitForMail(stack(), reader))?.body.html);
  const pixel = pixelOf(html) as string;
  const [link, hidden] = trackedLinksOf(html) as [string, string];

  // Act: Apple's proxy fetches the pixel on delivery, the reader opens it in a browser; a scanner
  // probes the link with HEAD and follows the hidden link; the reader clicks a while after.
  const opens = [await request(pixel, 'Mozilla/5.0'), await request(pixel, desktopBrowser)];
  const probe = await request(link, desktopBrowser, 'HEAD');
  const trap = await request(hidden, desktopBrowser);
  await new Promise((done) => setTimeout(done, 2_100));
  const click = await request(link, desktopBrowser);

  // Assess
  expect(opens.map((answer) => [answer.status, answer.headers.get('content-type')])).toEqual([
    [200, 'image/gif'],
    [200, 'image/gif'],
  ]);
  expect(html).toMatch(/<div style="display:none[^"]*" aria-hidden="true"><a href="[^"]+" tabindex="-1"><\/a><\/div><img src=/);
  expect([probe, trap, click].map((answer) => [answer.status, answer.headers.get('location')])).toEqual([
    [302, 'https://shop.example/news?from=mail'],
    [302, 'https://shop.example/news?from=mail'],
    [302, 'https://shop.example/news?from=mail'],
  ]);
  expect(await statsOnceDelivered(stack(), utr, 1)).toEqual({
    stats: { audience: 1, processed: 1, delivered: 1, opens: 1, unique_opens: 1, machine_opens: 1, clicks: 1, unique_clicks: 1, bot_clicks: 2, bounces: 0, complaints: 0, unsubscribes: 0, uncertain: 0 },
    links: [{ url: 'https://shop.example/news?from=mail', clicks: 1, unique_clicks: 1 }],
  });
}, 90_000);
