// The single-send pipeline end to end in process: dispatcher -> in-process queue -> deliverer -> SES
// sink, on DynamoDB Local. The scenario: 5 contacts, one unsubscribed globally, one in the
// send's group, one also reached through a targeted segment -> exactly 3 personalised mails.
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { addCustomField } from '../../shared/custom-fields/repository';
import { addNotificationRecipient } from '../../shared/notification-recipients/repository';
import { addSegment } from '../../shared/segments/repository';
import { deleteSingleSend } from '../../shared/single-sends/deletion';
import { createSingleSend, duplicateSingleSend, getSingleSend } from '../../shared/single-sends/repository';
import { addGlobalUnsubscribe, addToUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { verifyRecipientToken } from '../../shared/public-links/recipient-links';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { getDispatchState, startDispatch } from '../../shared/single-sends/progress';
import { newAccount } from '../support/accounts';
import { contactFields, headerOf, mailsTo, readySend, sqsEvent, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

/** The audience: a contact type of 5 and a segment (city Arlington) reaching one of them again. */
async function scenario() {
  const account = await newAccount();
  const accountId = account.account_id;
  const tag = Math.random().toString(36).slice(2, 8);
  const address = (name: string) => `${name}-${tag}@example.com`;
  const type = await addContactType(accountId, 'Readers');
  await addCustomField(accountId, 'plan', 'text');
  const segment = await addSegment(accountId, {
    contact_type_id: type.id,
    segment_name: 'Arlington',
    conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'Arlington' }],
  });
  const group = await addUnsubscribeGroup(accountId, { group_name: 'Newsletter', description: 'Monthly news', is_display: 1 });
  const people = {
    ada: address('ada'),
    unsubscribed: address('bob'),
    grouped: address('cy'),
    inSegment: address('dee'),
    eve: address('eve'),
  };
  await addContact(accountId, contactFields(type.id, people.ada, { first_name: 'Ada', last_name: 'Lovelace' }), { plan: 'Gold & <Platinum>' });
  await addContact(accountId, contactFields(type.id, people.unsubscribed, { first_name: 'Bob' }), {});
  await addContact(accountId, contactFields(type.id, people.grouped, { first_name: 'Cy' }), {});
  await addContact(accountId, contactFields(type.id, people.inSegment, { first_name: 'Dee', city: 'Arlington' }), { plan: 'Silver' });
  await addContact(accountId, contactFields(type.id, people.eve, { first_name: 'Eve' }), {});
  await addGlobalUnsubscribe(accountId, people.unsubscribed.toUpperCase());
  await addToUnsubscribeGroup(accountId, group.id, people.grouped);
  const owner = `owner-${tag}@example.com`;
  await addNotificationRecipient(accountId, { email_address: owner, email_owner: 'Owner' });
  const recipients = [
    { id: String(type.id), table: 'contacts_' as const },
    { id: String(segment.id), table: 'segments_' as const },
  ];
  return { accountId, typeId: type.id, segmentId: segment.id, groupId: group.id, people, owner, recipients };
}

describe('an immediate single send', () => {
  test('mails exactly the 3 mailable contacts, personalised, with headers, pixel and footer; completes with triggered 3', async () => {
    // Prepare
    const world = await scenario();
    const send = await readySend(world.accountId, { recipient_id: world.recipients, unsubscribe_group_id: world.groupId });

    // Act
    await dispatchHandler({ accountId: world.accountId, utr: send.utr });
    await localQueueIdle();

    // Assess: who got mail
    const everyone = Object.values(world.people);
    const mails = await mailsTo(env.sink, everyone);
    expect(mails.map((mail) => mail.destination.to[0]).sort()).toEqual([world.people.ada, world.people.eve, world.people.inSegment].sort());

    // Assess: each mail
    for (const mail of mails) {
      const to = mail.destination.to[0] as string;
      expect(mail.from).toBe('Acme News <news@acme.example>');
      expect(mail.replyTo).toEqual(['support@acme.example']);
      expect(headerOf(mail, 'List-Unsubscribe')).toMatch(/^<http:\/\/localhost:3000\/api\/public\/unsubscribe\?token=[^>]+>$/);
      expect(headerOf(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      const html = mail.body.html as string;
      expect(html).toContain('1 Main Street, Springfield, 90001, United States');
      expect(html).toContain('Unsubscribe or manage your preferences');
      expect(html).toMatch(/<span class="preheader"[^>]*>Our spring issue<\/span>/);
      const pixel = /<img src="http:\/\/localhost:3000\/api\/public\/open\?token=([^"]+)" width="1" height="1" alt=""[^>]*><\/body>/.exec(html);
      expect(pixel).not.toBeNull();
      const check = verifyRecipientToken(decodeURIComponent((pixel as RegExpExecArray)[1] as string));
      expect(check).toEqual({ valid: true, claims: { ref: { kind: 'single-send', accountId: world.accountId, utr: send.utr }, email: to, groupId: world.groupId } });
      expect(mail.body.text).toContain('Unsubscribe or manage your preferences (http://localhost:3000/api/public/preferences?token=');
    }
    const ada = mails.find((mail) => mail.destination.to[0] === world.people.ada);
    expect(ada?.subject).toBe('Hello Ada');
    expect(ada?.body.html).toContain('<p>Dear Ada Lovelace,</p><p>Plan: Gold &amp; &lt;Platinum&gt;</p>');
    const dee = mails.find((mail) => mail.destination.to[0] === world.people.inSegment);
    // Reached through the contact type first, so it carries the full contact (custom field included).
    expect(dee?.body.html).toContain('Plan: Silver');

    // Assess: the send, once SES's delivery events are in
    await env.sink.eventsIdle();
    const completed = await getSingleSend(world.accountId, send.utr);
    expect(completed).toMatchObject({ status: 3, triggered: 3, delivered: 3, bounces: 0, unique_opens: 0, total_opens: 0, unsubscribes: 0 });
    expect(completed.sent_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const progress = await getDispatchState(world.accountId, send.utr);
    expect(progress).toMatchObject({ done: true, sent: 3, failed: 0 });
    expect(progress?.settledBatches).toBe(progress?.fannedBatches);

    // Assess: the summary to the notification recipient
    const [summary, ...more] = await mailsTo(env.sink, [world.owner]);
    expect(more).toHaveLength(0);
    expect(summary?.from).toBe('no-reply@localhost');
    expect(summary?.subject).toBe('Single send completed: Spring news');
    // Delivered as far as SES's delivery events had arrived when the send completed; the mail says more may follow.
    const deliveredThen = Number(/\nDelivered: (\d+)\n/.exec(summary?.body.text ?? '')?.[1]);
    expect(deliveredThen).toBeLessThanOrEqual(3);
    expect(summary?.body.text).toContain(`Recipients: 3\nDelivered: ${deliveredThen}\nBounces: 0\nUnsubscribes: 0`);
    expect(summary?.body.text).toContain('Delivered, bounces and unsubscribes keep counting as events arrive');
  });

  test('excluded entries are left out, even when also targeted', async () => {
    const world = await scenario();
    const send = await readySend(world.accountId, {
      recipient_id: world.recipients,
      exclude_specific_recipient_id: [{ id: String(world.segmentId), table: 'segments_' }],
      unsubscribe_group_id: world.groupId,
    });

    await dispatchHandler({ accountId: world.accountId, utr: send.utr });
    await localQueueIdle();

    const mails = await mailsTo(env.sink, Object.values(world.people));
    expect(mails.map((mail) => mail.destination.to[0]).sort()).toEqual([world.people.ada, world.people.eve].sort());
    expect(await getSingleSend(world.accountId, send.utr)).toMatchObject({ status: 3, triggered: 2 });
  });

  test('a send with nobody left to mail still completes', async () => {
    const world = await scenario();
    const send = await readySend(world.accountId, {
      recipient_id: world.recipients,
      exclude_specific_recipient_id: [{ id: String(world.typeId), table: 'contacts_' }],
    });

    await dispatchHandler({ accountId: world.accountId, utr: send.utr });
    await localQueueIdle();

    expect(await mailsTo(env.sink, Object.values(world.people))).toHaveLength(0);
    expect(await getSingleSend(world.accountId, send.utr)).toMatchObject({ status: 3, triggered: 0 });
  });

  test('a second dispatcher run (a duplicate fire) changes nothing', async () => {
    const world = await scenario();
    const send = await readySend(world.accountId, { recipient_id: world.recipients, unsubscribe_group_id: world.groupId });

    await Promise.all([dispatchHandler({ accountId: world.accountId, utr: send.utr }), dispatchHandler({ accountId: world.accountId, utr: send.utr })]);
    await localQueueIdle();
    await dispatchHandler({ accountId: world.accountId, utr: send.utr, resume: true });
    await localQueueIdle();

    expect(await mailsTo(env.sink, Object.values(world.people))).toHaveLength(3);
    expect(await getSingleSend(world.accountId, send.utr)).toMatchObject({ status: 3, triggered: 3 });
  });
});

describe('the dispatcher leaves alone', () => {
  test('drafts, completed sends, sends scheduled later and deleted sends', async () => {
    const world = await scenario();
    const completed = await readySend(world.accountId, { recipient_id: world.recipients, unsubscribe_group_id: world.groupId });
    await dispatchHandler({ accountId: world.accountId, utr: completed.utr });
    await localQueueIdle();
    const mailedOnce = (await mailsTo(env.sink, Object.values(world.people))).length;
    const draft = await duplicateSingleSend(world.accountId, completed.utr);
    // A job that fires before the send's time (the send was moved later) must not send it.
    const future = await createSingleSend(world.accountId, { ...completed, schedule_type: 1 }, new Date(Date.now() + 3_600_000));
    const deleted = await readySend(world.accountId, { recipient_id: world.recipients });
    await deleteSingleSend(world.accountId, deleted.utr);

    for (const utr of [completed.utr, draft.utr, future.utr, deleted.utr]) await dispatchHandler({ accountId: world.accountId, utr });
    await localQueueIdle();

    expect(mailedOnce).toBe(3);
    expect(await mailsTo(env.sink, Object.values(world.people))).toHaveLength(3);
    expect((await getSingleSend(world.accountId, draft.utr)).status).toBe(0);
    expect((await getSingleSend(world.accountId, future.utr)).status).toBe(1);
    expect((await getSingleSend(world.accountId, completed.utr)).triggered).toBe(3);
  });

  test('batches of a send deleted while running are not delivered', async () => {
    const world = await scenario();
    const send = await readySend(world.accountId, { recipient_id: world.recipients });
    expect(await startDispatch(world.accountId, send.utr)).toBe(true);
    await deleteSingleSend(world.accountId, send.utr);
    const message = {
      ref: { kind: 'single-send', accountId: world.accountId, utr: send.utr },
      recipients: [{ email: world.people.ada, contactId: null, fields: {} }],
      batchId: '0.0',
    };

    const response = await deliverHandler(sqsEvent([message]));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(await mailsTo(env.sink, [world.people.ada])).toHaveLength(0);
  });
});
