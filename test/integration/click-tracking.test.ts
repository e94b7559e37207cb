// Click tracking: a send's http(s) links go through our click endpoint (HTML and text part; our own
// pages and other schemes left alone), which answers 302 to the original target only for links we
// signed and counts clicks (total, unique per recipient, per link); single-send/stats shows them, and
// SES click events feed the same counters without counting our own links twice.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as sesEventsHandler } from '../../functions/ses-events/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { config } from '../../shared/config';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { clickUrl, linkHash } from '../../shared/rendering/click-tracking';
import { recipientToken } from '../../shared/public-links/recipient-links';
import { mostClickedLinks } from '../../shared/single-sends/link-clicks';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import { recordClick } from '../../shared/statistics/event-counts';
import { singleSendKey } from '../../shared/single-sends/keys';
import { deleteSingleSend } from '../../shared/single-sends/deletion';
import { batchWriteAll, putRequest } from '../../shared/table/batch';
import { entityPartition, shardPartition } from '../../shared/table/keys';
import { getItem, putItem } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { apiEvent, type Keys } from '../support/events';
import { contactFields, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment, type SinkMail } from '../support/sending';
import { callSingleSends } from '../support/single-sends';
import { asAReader, browserUserAgent } from '../support/recipient-pages';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

const design =
  '<!DOCTYPE html><html><head><title>News</title></head><body>' +
  '<p>Dear ((full_name)), <a href="https://shop.example/spring?a=1&amp;b=2" class="cta">Shop the sale</a></p>' +
  '<p><a href=\'https://blog.example/post\'>Read the blog</a> or <a href="mailto:help@acme.example">write to us</a>' +
  ' or <a href="#top">go up</a>.</p>' +
  '<!-- <a href="https://hidden.example/">not a link</a> -->' +
  '<p><a href="((unsubscribe_preferences))">Manage preferences</a></p></body></html>';

/** The hrefs of a mail's links (not those in comments), entities undone. */
function hrefsOf(mail: SinkMail | undefined): string[] {
  return [...String(mail?.body.html).replace(/<!--[^]*?-->/g, '').matchAll(/<a [^>]*href="([^"]*)"/g)].map((match) => (match[1] as string).replace(/&amp;/g, '&'));
}

/** Follow a link as a person's browser does: no credentials, only the URL, a while after the mail came. */
function follow(link: string): Promise<APIGatewayProxyStructuredResultV2> {
  const url = new URL(link);
  const event = apiEvent({ method: 'GET', path: url.pathname.replace(/^\/api\//, ''), query: Object.fromEntries(url.searchParams), headers: { 'user-agent': browserUserAgent } });
  return asAReader(() => publicPages(event));
}

/** The same link with one query parameter changed (or removed, when `value` is undefined). */
function withParam(link: string, name: string, value: string | undefined): string {
  const url = new URL(link);
  if (value === undefined) url.searchParams.delete(name);
  else url.searchParams.set(name, value);
  return url.href;
}

const isClickLink = (href: string) => href.startsWith(`${config().publicBaseUrl}public/click?`);

interface SentDesign {
  keys: Keys & { account_id: number };
  utr: string;
  ref: SendRef;
  emails: [string, string];
  /** Each recipient's mail, by address. */
  mails: Map<string, SinkMail>;
}

/** A completed send of `design` to two contacts of a fresh account, its SES delivery events in, with each recipient's mail. */
async function sentDesign(): Promise<SentDesign> {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Newsletter');
  const tag = Math.random().toString(36).slice(2, 8);
  const emails: [string, string] = [`ada-${tag}@example.com`, `bob-${tag}@example.com`];
  for (const email of emails) await addContact(keys.account_id, contactFields(type.id, email), {});
  const send = await readySend(keys.account_id, { recipient_id: [{ id: String(type.id), table: 'contacts_' }], template_html: design });
  await dispatchHandler({ accountId: keys.account_id, utr: send.utr });
  await localQueueIdle();
  await env.sink.eventsIdle();
  const mails = new Map((await mailsTo(env.sink, emails)).map((mail) => [mail.destination.to[0] as string, mail]));
  return { keys, utr: send.utr, ref: { kind: 'single-send', accountId: keys.account_id, utr: send.utr }, emails, mails };
}

function statsOf(keys: Keys | undefined, query: Record<string, string>) {
  return callSingleSends(keys, 'GET', 'single-send/stats', { query });
}

const noClicks = { clicks: 0, unique_clicks: 0 };
const sentToTwo = { audience: 2, processed: 2, delivered: 2, opens: 0, unique_opens: 0, machine_opens: 0, bot_clicks: 0, bounces: 0, complaints: 0, unsubscribes: 0, uncertain: 0 };

describe('tracked links in a sent mail', () => {
  test('http(s) links go through the click endpoint in the HTML and the text; our own pages, mailto and fragments stay', async () => {
    const { mails, emails } = await sentDesign();
    const mail = mails.get(emails[0]) as SinkMail;
    const hrefs = hrefsOf(mail);

    expect(hrefs).toHaveLength(6);
    const [shop, blog, mailto, fragment, preferences, hidden] = hrefs as [string, string, string, string, string, string];
    expect([isClickLink(shop), isClickLink(blog)]).toEqual([true, true]);
    expect(new URL(shop).searchParams.get('url')).toBe('https://shop.example/spring?a=1&b=2');
    expect(new URL(blog).searchParams.get('url')).toBe('https://blog.example/post');
    expect([mailto, fragment]).toEqual(['mailto:help@acme.example', '#top']);
    expect(preferences.startsWith(`${config().publicBaseUrl}public/preferences?token=`)).toBe(true);
    // The other attributes are kept; a link in a comment is not a link.
    expect(String(mail.body.html)).toMatch(/<a href="[^"]+" class="cta">Shop the sale<\/a>/);
    expect(String(mail.body.html)).toContain('<!-- <a href="https://hidden.example/">not a link</a> -->');
    // The text part carries the same tracked links, and not the hidden one (to the first link's target, signed apart).
    expect(mail.body.text).toContain(`Shop the sale (${shop})`);
    expect(mail.body.text).toContain(`Read the blog (${blog})`);
    expect(isClickLink(hidden) && new URL(hidden).searchParams.get('url')).toBe('https://shop.example/spring?a=1&b=2');
    expect(hidden).not.toBe(shop);
    expect(mail.body.text).not.toContain(new URL(hidden).searchParams.get('sig') as string);
    // Each recipient's links are their own.
    expect(hrefsOf(mails.get(emails[1]))[0]).not.toBe(shop);
  });
});

describe('the click endpoint and single-send/stats', () => {
  test('a click redirects 302 to the original target and counts: total, unique per recipient, per link', async () => {
    // Prepare
    const { keys, utr, mails, emails } = await sentDesign();
    const [adaShop, adaBlog] = hrefsOf(mails.get(emails[0])) as [string, string];
    const [bobShop] = hrefsOf(mails.get(emails[1])) as [string];
    const before = await statsOf(keys, { utr });

    // Act
    const first = await follow(adaShop);
    await follow(adaShop);
    const blog = await follow(adaBlog);
    await follow(bobShop);

    // Assess
    expect(first.statusCode).toBe(302);
    expect(first.headers).toEqual({ location: 'https://shop.example/spring?a=1&b=2', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    expect(first.body).toBe('');
    expect(blog.headers?.location).toBe('https://blog.example/post');
    expect(before).toEqual({ status: 200, body: { status: 'success', message: { stats: { ...sentToTwo, ...noClicks }, links: [] } } });
    expect(await statsOf(keys, { utr })).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: {
          stats: { ...sentToTwo, clicks: 4, unique_clicks: 2 },
          links: [
            { url: 'https://shop.example/spring?a=1&b=2', clicks: 3, unique_clicks: 2 },
            { url: 'https://blog.example/post', clicks: 1, unique_clicks: 1 },
          ],
        },
      },
    });
  });

  test('a link whose target, signature or token was changed is refused with the invalid-link page, never redirected or counted', async () => {
    const { keys, utr, ref, mails, emails } = await sentDesign();
    const [shop] = hrefsOf(mails.get(emails[0])) as [string];
    const token = new URL(shop).searchParams.get('token') as string;
    const otherToken = recipientToken(ref, emails[1], null);

    const refused = [
      withParam(shop, 'url', 'https://evil.example/'),
      withParam(shop, 'url', 'https://shop.example/spring?a=1&b=3'),
      withParam(shop, 'sig', 'AAAAAAAAAAAAAAAAAAAAAA'),
      withParam(shop, 'sig', undefined),
      withParam(shop, 'token', otherToken),
      withParam(shop, 'token', `${token}x`),
      // Signed, but not a web target: never redirected (javascript:, data:).
      clickUrl(token, 'javascript:alert(1)'),
      `${config().publicBaseUrl}public/click`,
    ];
    for (const link of refused) {
      const page = await follow(link);
      expect({ link, status: page.statusCode, type: page.headers?.['content-type'], location: page.headers?.location }).toEqual({
        link,
        status: 400,
        type: 'text/html; charset=utf-8',
        location: undefined,
      });
      expect(String(page.body)).toContain('This link is not valid');
    }
    expect(((await statsOf(keys, { utr })).body.message as { stats: Record<string, number> }).stats).toMatchObject(noClicks);
  });

  test('stats of an unknown send, a malformed utr or another account\'s send: not found; no credentials: 401; no utr: 422', async () => {
    const { keys, utr } = await sentDesign();
    const stranger = await newAccount();

    const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' } };
    expect(await statsOf(stranger, { utr })).toEqual(notFound);
    expect(await statsOf(keys, { utr: '00000000-0000-4000-8000-000000000000' })).toEqual(notFound);
    expect(await statsOf(keys, { utr: 'not.a.utr' })).toEqual(notFound);
    expect((await statsOf(undefined, { utr })).status).toBe(401);
    expect(await statsOf(keys, {})).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
  });

  test('single-send/details shows audience and processed beside uncertain once the send started', async () => {
    const { keys, utr } = await sentDesign();
    const draft = await readySend(keys.account_id);

    const details = async (of: string) =>
      ((await callSingleSends(keys, 'GET', 'single-send/details', { query: { utr: of } })).body.message as { singleSend: Record<string, unknown>[] }).singleSend[0];

    expect(await details(utr)).toMatchObject({ status: 3, uncertain: 0, audience: 2, processed: 2 });
    const before = await details(draft.utr);
    expect(before).toMatchObject({ status: 1, uncertain: 0 });
    expect(before).not.toHaveProperty('audience');
    expect(before).not.toHaveProperty('processed');
  });
});

describe('link counts stored before they were sharded', () => {
  test('are summed with the clicks counted since, in single-send/stats', async () => {
    // Prepare: the send's link item as the code before kept it, one per (send, link) in one partition.
    const { keys, utr, ref, emails } = await sentDesign();
    const shop = 'https://shop.example/spring?a=1&b=2';
    await putItem({ Item: { pk: entityPartition(ref.accountId, `link-clicks#${encodeSendRef(ref)}`), sk: linkHash(shop), entity: 'link-clicks', url: shop, clicks: 5, unique_clicks: 3 } });

    // Act: each recipient clicks it once more, in whichever shard.
    for (const email of emails) await recordClick(ref, email, shop);

    // Assess
    expect(((await statsOf(keys, { utr })).body.message as { links: unknown }).links).toEqual([{ url: shop, clicks: 7, unique_clicks: 5 }]);
  });

  test('a bounded read shows each link summed over all of its items, never a part of them', async () => {
    // Prepare: 1,000 links in the partition from before sharding, the last 500 of them also in a
    // shard with 100 clicks each; one read takes 556 items of each partition (5,000 / 9).
    const keys = await newAccount();
    const send = await readySend(keys.account_id);
    const ref: SendRef = { kind: 'single-send', accountId: keys.account_id, utr: send.utr };
    const legacy = entityPartition(ref.accountId, `link-clicks#${encodeSendRef(ref)}`);
    const link = (i: number, pk: string, clicks: number) => ({ pk, sk: `h${String(i).padStart(4, '0')}`, entity: 'link-clicks', url: `https://shop.example/${i}`, clicks, unique_clicks: 1 });
    const items = [...Array.from({ length: 1000 }, (_, i) => link(i, legacy, 1)), ...Array.from({ length: 500 }, (_, i) => link(500 + i, shardPartition(legacy, 0), 100))];
    await batchWriteAll(items.map(putRequest));

    // Act
    const links = await mostClickedLinks(ref);

    // Assess: links 500 to 555 were read whole (101 clicks); 556 and on, read only in the shard, are left out.
    expect(links.slice(0, 56)).toEqual(Array.from({ length: 56 }, (_, i) => ({ url: `https://shop.example/${500 + i}`, clicks: 101, unique_clicks: 2 })));
    expect(links.slice(56).every((shown) => shown.clicks === 1)).toBe(true);
  });
});

describe('clicks on a deleted send', () => {
  test('are dropped: the send is not recreated and no link is counted', async () => {
    const keys = await newAccount();
    const send = await readySend(keys.account_id);
    const ref: SendRef = { kind: 'single-send', accountId: keys.account_id, utr: send.utr };
    await deleteSingleSend(keys.account_id, send.utr);

    expect(await recordClick(ref, 'ada@example.com', 'https://shop.example/')).toBe(false);
    expect(await getItem(singleSendKey(keys.account_id, send.utr))).toBeUndefined();
    expect(await mostClickedLinks(ref)).toEqual([]);
  });
});

describe('SES click events', () => {
  function clickEvent(ref: SendRef, to: string, link: string) {
    return {
      version: '0',
      id: `click-${Math.random()}`,
      'detail-type': 'Email Clicked',
      source: 'aws.ses',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: { eventType: 'Click', mail: { messageId: 'ses-1', destination: [to], tags: { send_ref: [encodeSendRef(ref)] } }, click: { link } },
    };
  }

  test('count like our own clicks, except clicks on our click links (already counted) and on our own pages', async () => {
    const { keys, utr, ref, mails, emails } = await sentDesign();
    const [, , , , preferences] = hrefsOf(mails.get(emails[0])) as string[];
    const [bobShop] = hrefsOf(mails.get(emails[1])) as [string];

    await sesEventsHandler(clickEvent(ref, emails[0], 'https://untracked.example/a'));
    await sesEventsHandler(clickEvent(ref, emails[0], 'https://untracked.example/a'));
    await sesEventsHandler(clickEvent(ref, emails[1], 'https://untracked.example/a'));
    await follow(bobShop);
    await sesEventsHandler(clickEvent(ref, emails[1], bobShop));
    await sesEventsHandler(clickEvent(ref, emails[1], preferences as string));

    expect((await statsOf(keys, { utr })).body.message).toEqual({
      stats: { ...sentToTwo, clicks: 4, unique_clicks: 2 },
      links: [
        { url: 'https://untracked.example/a', clicks: 3, unique_clicks: 2 },
        { url: 'https://shop.example/spring?a=1&b=2', clicks: 1, unique_clicks: 1 },
      ],
    });
  });
});
