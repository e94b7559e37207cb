// Machine opens and bot clicks (statistics/engagement-rules.ts) counted apart from people's: a sent
// mail's pixel and links requested as Apple's privacy proxy, scanners and people do, in
// single-send/stats and automations/stats; bot clicks still redirected; webhooks told which was which;
// SES click events judged by what they report.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as sesEventsHandler } from '../../functions/ses-events/handler';
import { handler as deliverWebhooks } from '../../functions/webhook-deliver/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { getAutomation } from '../../shared/automations/repository';
import { readLedgerEntry } from '../../shared/ledger/repository';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import { openPixelUrl } from '../../shared/public-links/recipient-links';
import { localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { clickUrl } from '../../shared/rendering/click-tracking';
import { resetClock, setClock } from '../../shared/time';
import { saveWebhook } from '../../shared/webhooks/webhook-service';
import { newAccount } from '../support/accounts';
import { addStep, automationWorld, call, createAutomation, schedulesOf } from '../support/automations';
import { apiEvent } from '../support/events';
import { asAReader, browserUserAgent, recipientToken } from '../support/recipient-pages';
import { contactFields, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment, type SinkMail } from '../support/sending';
import { callSingleSends } from '../support/single-sends';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

let env: SendingEnvironment;
let receiver: WebhookReceiver;
let unregister: () => void;

beforeAll(async () => {
  env = await startSendingEnvironment();
  receiver = await startWebhookReceiver();
  unregister = registerLocalConsumer('webhooks', (event) => deliverWebhooks(event));
});

afterAll(async () => {
  unregister();
  await receiver.close();
  await env.stop();
});

beforeEach(() => {
  receiver.received.length = 0;
});

const applePrivacyProxy = 'Mozilla/5.0';
const scanner = 'Barracuda Sentinel (EE)';

const design =
  '<!DOCTYPE html><html><body><p><a href="https://shop.example/sale">Shop the sale</a> or <a href="https://blog.example/post">read the blog</a></p>' +
  '<p><a href="((unsubscribe_preferences))">Manage preferences</a></p></body></html>';

/** A request for one of a mail's links (HTML entities undone), with these headers. */
function request(link: string, options: { method?: string; userAgent?: string } = {}): Promise<APIGatewayProxyStructuredResultV2> {
  const url = new URL(link.replace(/&amp;/g, '&'));
  const headers: Record<string, string> = options.userAgent === undefined ? {} : { 'user-agent': options.userAgent };
  return publicPages(apiEvent({ method: options.method ?? 'GET', path: url.pathname.replace(/^\/api\//, ''), query: Object.fromEntries(url.searchParams), headers }));
}

/** The mail's pixel, its tracked links in order (the hidden one last) and the text part. */
function linksOf(mail: SinkMail | undefined): { pixel: string; links: string[]; text: string } {
  const html = String(mail?.body.html);
  const pixel = /<img src="([^"]+\/public\/open\?token=[^"]+)"/.exec(html)?.[1] as string;
  const links = [...html.matchAll(/<a [^>]*href="([^"]*\/public\/click\?[^"]*)"/g)].map((match) => match[1] as string);
  return { pixel, links, text: String(mail?.body.text) };
}

/** A completed send of the design to one contact of a fresh account, with its mail. */
async function sentMail(): Promise<{ keys: Awaited<ReturnType<typeof newAccount>>; utr: string; email: string; mail: SinkMail }> {
  const keys = await newAccount();
  await saveWebhook(keys.account_id, { url: receiver.url('/events'), events: ['open', 'click'] });
  const type = await addContactType(keys.account_id, 'Readers');
  const email = `reader-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await addContact(keys.account_id, contactFields(type.id, email), {});
  const send = await readySend(keys.account_id, { recipient_id: [{ id: String(type.id), table: 'contacts_' }], template_html: design });
  await dispatchHandler({ accountId: keys.account_id, utr: send.utr });
  await localQueueIdle();
  await env.sink.eventsIdle();
  const [mail] = await mailsTo(env.sink, [email]);
  return { keys, utr: send.utr, email, mail: mail as SinkMail };
}

const noStats = { audience: 1, processed: 1, delivered: 1, opens: 0, unique_opens: 0, machine_opens: 0, clicks: 0, unique_clicks: 0, bot_clicks: 0, bounces: 0, complaints: 0, unsubscribes: 0, uncertain: 0 };

describe('a single send', () => {
  test("Apple's privacy proxy opens as a machine, a browser as a person, who still counts once after it", async () => {
    // Prepare
    const { keys, utr, email, mail } = await sentMail();
    const { pixel } = linksOf(mail);

    // Act
    const machine = await request(pixel, { userAgent: applePrivacyProxy });
    const scanned = await request(pixel, { userAgent: scanner });
    const person = await request(pixel, { userAgent: browserUserAgent });
    await localQueueIdle();

    // Assess: the same image for all; the proxy and the scanner share the machines' hour (one counted).
    expect([machine, scanned, person].map((answer) => [answer.statusCode, answer.headers?.['content-type']])).toEqual([
      [200, 'image/gif'],
      [200, 'image/gif'],
      [200, 'image/gif'],
    ]);
    expect(await callSingleSends(keys, 'GET', 'single-send/stats', { query: { utr } })).toEqual({
      status: 200,
      body: { status: 'success', message: { stats: { ...noStats, opens: 1, unique_opens: 1, machine_opens: 1 }, links: [] } },
    });
    // The spec's statistics on the send count people only.
    const details = (await callSingleSends(keys, 'GET', 'single-send/details', { query: { utr } })).body.message as { singleSend: Record<string, unknown>[] };
    expect(details.singleSend[0]).toMatchObject({ unique_opens: 1, total_opens: 1 });
    expect(receiver.received.map((received) => JSON.parse(received.body))).toEqual([
      { event: 'open', email, utr, machine: true, timestamp: expect.any(String) },
      { event: 'open', email, utr, machine: false, timestamp: expect.any(String) },
    ]);
  });

  test('a HEAD, the hidden link, an empty User-Agent, a scanner and a click within 2 seconds are bot clicks, redirected all the same', async () => {
    // Prepare
    const { keys, utr, email, mail } = await sentMail();
    const { links, text } = linksOf(mail);
    const [shop, blog, hidden] = links as [string, string, string];

    // Act: a scanner 1.5 s after the mail was handed to SES (its ledger entry's claim), then bots and a person a while after it.
    const { claimedAt } = (await readLedgerEntry({ kind: 'single-send', accountId: keys.account_id, utr }, email)) as { claimedAt: number };
    setClock(() => new Date(claimedAt + 1_500));
    const early = await request(blog, { userAgent: browserUserAgent }).finally(resetClock);
    const bots = await asAReader(async () => [
      await request(shop, { method: 'HEAD', userAgent: browserUserAgent }),
      await request(hidden, { userAgent: browserUserAgent }),
      await request(shop, { userAgent: '' }),
      await request(shop),
      await request(shop, { userAgent: `Mozilla/5.0 (compatible; ${scanner})` }),
    ]);
    const person = await asAReader(() => request(shop, { userAgent: browserUserAgent }));
    await localQueueIdle();

    // Assess
    expect(links).toHaveLength(3);
    expect(text).not.toContain(new URL(hidden.replace(/&amp;/g, '&')).searchParams.get('sig') as string);
    expect([early, ...bots, person].map((answer) => [answer.statusCode, answer.headers?.location])).toEqual([
      [302, 'https://blog.example/post'],
      [302, 'https://shop.example/sale'],
      // The hidden link leads where the mail's first link does.
      [302, 'https://shop.example/sale'],
      [302, 'https://shop.example/sale'],
      [302, 'https://shop.example/sale'],
      [302, 'https://shop.example/sale'],
      [302, 'https://shop.example/sale'],
    ]);
    expect(await callSingleSends(keys, 'GET', 'single-send/stats', { query: { utr } })).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: { stats: { ...noStats, clicks: 1, unique_clicks: 1, bot_clicks: 6 }, links: [{ url: 'https://shop.example/sale', clicks: 1, unique_clicks: 1 }] },
      },
    });
    const clicks = receiver.received.map((received) => JSON.parse(received.body) as { url: string; machine: boolean });
    expect(clicks.map((click) => [click.url, click.machine])).toEqual([
      ['https://blog.example/post', true],
      ...Array.from({ length: 5 }, () => ['https://shop.example/sale', true]),
      ['https://shop.example/sale', false],
    ]);
    expect(clicks.at(-1)).toEqual({ event: 'click', email, utr, url: 'https://shop.example/sale', machine: false, timestamp: expect.any(String) });
  });

  test('SES click events: an empty User-Agent or a click within 2 seconds of the send is a bot; a browser later on is a person', async () => {
    const { keys, utr } = await sentMail();
    const ref: SendRef = { kind: 'single-send', accountId: keys.account_id, utr };
    const sentAt = '2026-05-01T10:00:00.000Z';
    const click = (userAgent: string, at: string) => ({
      version: '0',
      id: `click-${Math.random()}`,
      'detail-type': 'Email Clicked',
      source: 'aws.ses',
      account: '000000000000',
      time: at,
      region: 'us-east-1',
      resources: [],
      detail: {
        eventType: 'Click',
        mail: { messageId: 'ses-1', timestamp: sentAt, destination: ['ada@example.com'], tags: { send_ref: [encodeSendRef(ref)] } },
        click: { link: 'https://untracked.example/a', timestamp: at, userAgent, ipAddress: '192.0.2.1' },
      },
    });

    await sesEventsHandler(click('', '2026-05-01T10:05:00.000Z'));
    await sesEventsHandler(click(browserUserAgent, '2026-05-01T10:00:01.500Z'));
    await sesEventsHandler(click(browserUserAgent, '2026-05-01T10:05:00.000Z'));

    expect((await callSingleSends(keys, 'GET', 'single-send/stats', { query: { utr } })).body.message).toEqual({
      stats: { ...noStats, clicks: 1, unique_clicks: 1, bot_clicks: 2 },
      links: [{ url: 'https://untracked.example/a', clicks: 1, unique_clicks: 1 }],
    });
  });
});

describe('an automation step', () => {
  test("automations/stats shows machine opens and bot clicks apart; the automation's totals count people", async () => {
    // Prepare: a step's links as its mail carries them (no ledger entry: the 2-second rule cannot apply).
    const world = await automationWorld();
    const utr = await createAutomation(world);
    await addStep(world, utr, { subject: 'Welcome aboard' });
    const [step] = (await schedulesOf(world, utr)).map((line) => ({ id: Number(line.id), utr: String(line.utr) }));
    const ref: SendRef = { kind: 'automation-step', accountId: world.accountId, automationUtr: utr, stepUtr: (step as { utr: string }).utr };
    const token = recipientToken(ref, 'ada@example.com', null);
    const link = clickUrl(token, 'https://shop.example/welcome');

    // Act
    await request(openPixelUrl(token), { userAgent: applePrivacyProxy });
    await request(openPixelUrl(token), { userAgent: browserUserAgent });
    const probe = await request(link, { method: 'HEAD', userAgent: browserUserAgent });
    await request(link, { userAgent: browserUserAgent });

    // Assess
    expect([probe.statusCode, probe.headers?.location]).toEqual([302, 'https://shop.example/welcome']);
    expect(await call(world.keys, 'GET', 'automations/stats', { query: { utr } })).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: {
          steps: [
            { id: (step as { id: number }).id, subject: 'Welcome aboard', delivered: 0, opens: 1, unique_opens: 1, machine_opens: 1, clicks: 1, unique_clicks: 1, bot_clicks: 1, bounces: 0, complaints: 0, unsubscribes: 0 },
          ],
        },
      },
    });
    expect(await getAutomation(world.accountId, utr)).toMatchObject({ total_opens: 1, total_unique_opens: 1 });
  });
});
