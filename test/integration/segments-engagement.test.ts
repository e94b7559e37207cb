// Segments on engagement and with OR: each engagement operator, their validation, the union of an OR
// segment, membership moving on a person's open and click (through the public pixel and click link),
// on a send's completion and on the daily slide of a window, and what a first open costs.
import { handler as publicPages } from '../../functions/public-pages/handler';
import { onSingleSendCompleted } from '../../shared/audience/engagement-completion';
import { onFirstEngagement } from '../../shared/audience/engagement-events';
import { startWindowSlide } from '../../shared/audience/engagement-windows';
import { addContact } from '../../shared/audience/contact-service';
import { addContactType } from '../../shared/contact-types/repository';
import { noteEngagement } from '../../shared/ledger/engagement';
import { claimRecipient, markRecipientSent } from '../../shared/ledger/repository';
import type { SendRef } from '../../shared/ledger/send-ref';
import { recipientToken } from '../../shared/public-links/recipient-links';
import { clickUrl } from '../../shared/rendering/click-tracking';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { measured } from '../support/consumed-capacity';
import { apiEvent } from '../support/events';
import { jobsSettled } from '../support/jobs';
import { browserUserAgent, storedSingleSend } from '../support/recipient-pages';
import { callSegments, segmentContact, segmentForm, type Rule } from '../support/segments';

type Account = Awaited<ReturnType<typeof newAccount>>;

const emails = ['opener@example.com', 'clicker@example.com', 'quiet@example.com', 'idle@example.com'];
const neverMailed = 'never@example.com';

async function save(keys: Account, typeId: number, rules: Rule[], extra: Record<string, string> = {}) {
  return callSegments(keys, 'POST', 'segment/save', { body: segmentForm(typeId, 'Engaged', rules, extra) });
}

async function members(keys: Account, segmentId: number): Promise<string[]> {
  const { body } = await callSegments(keys, 'GET', 'segment/email/list', { query: { segment_id: segmentId } });
  return (body.message as { contactEmails: { email: string }[] }).contactEmails.map((recipient) => recipient.email).sort();
}

/** An account whose four contacts were mailed by one single send (the ledger holds them sent), and a fifth never mailed. */
async function mailedAccount() {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Readers');
  for (const [i, email] of [...emails, neverMailed].entries()) await addContact(keys.account_id, segmentContact(type.id, email, { city: i % 2 === 0 ? 'Kochi' : 'Pune' }), {});
  const ref = await storedSingleSend(keys.account_id);
  for (const email of emails) {
    const claim = await claimRecipient(ref, email);
    if (claim) await markRecipientSent(claim);
  }
  return { keys, typeId: type.id, ref };
}

/** The pixel, as a person's mail client loads it. */
async function open(ref: SendRef, email: string) {
  const page = await publicPages(apiEvent({ method: 'GET', path: 'public/open', query: { token: recipientToken(ref, email, null) }, headers: { 'user-agent': browserUserAgent } }));
  expect(page.statusCode).toBe(200);
}

/**
 * A tracked link followed by a person, a minute after the mail was sent (the clock moved on for it,
 * then set back: to real time, or to the simulated time `at`).
 */
async function click(ref: SendRef, email: string, at?: number) {
  const url = new URL(clickUrl(recipientToken(ref, email, null), 'https://shop.example/spring'));
  setClock(() => new Date((at ?? Date.now()) + 60_000));
  try {
    const page = await publicPages(apiEvent({ method: 'GET', path: 'public/click', query: Object.fromEntries(url.searchParams), headers: { 'user-agent': browserUserAgent } }));
    expect(page.statusCode).toBe(302);
  } finally {
    if (at === undefined) resetClock();
    else setClock(() => new Date(at));
  }
}

describe('engagement segments', () => {
  test('refuse an unknown or another account\'s send, a window outside 1 to 365 days, mismatched operators and an unknown query type', async () => {
    const { keys, typeId } = await mailedAccount();
    const stranger = await storedSingleSend((await newAccount()).account_id);
    const result = await save(
      keys,
      typeId,
      [
        ['email_opened', 'in single send', stranger.utr],
        ['email_clicked', 'not in single send', '00000000-0000-4000-8000-000000000000'],
        ['email_opened', 'in last days', '0'],
        ['email_opened', 'not in last days', '366'],
        ['email_clicked', 'in last days', 'week'],
        ['email_opened', 'is', 'x'],
        ['city', 'in last days', '3'],
        ['email_opened', 'in single send', 'not-a-utr'],
      ],
      { query_type: 'xor' },
    );
    expect(result).toEqual({
      status: 422,
      body: {
        status: 'failed',
        errors: {
          'value.0': ['The selected value.0 is invalid.'],
          'value.1': ['The selected value.1 is invalid.'],
          'value.2': ['The value.2 field must be at least 1.'],
          'value.3': ['The value.3 field must not be greater than 365.'],
          'value.4': ['The value.4 field must be an integer.'],
          'select_operator.5': ['The selected select operator.5 is invalid.'],
          'select_operator.6': ['The selected select operator.6 is invalid.'],
          'value.7': ['The selected value.7 is invalid.'],
          query_type: ['The selected query type is invalid.'],
        },
      },
    });
  });

  test('in and not in single send follow opens and clicks; a click counts as an open', async () => {
    const { keys, typeId, ref } = await mailedAccount();
    expect((await save(keys, typeId, [['email_opened', 'in single send', ref.utr]])).status).toBe(200);
    expect((await save(keys, typeId, [['email_opened', 'not in single send', ref.utr]])).status).toBe(200);
    expect((await save(keys, typeId, [['email_clicked', 'in single send', ref.utr.toUpperCase()]])).status).toBe(200);
    expect((await save(keys, typeId, [['email_clicked', 'not in single send', ref.utr]])).status).toBe(200);
    expect([await members(keys, 1), await members(keys, 2)]).toEqual([[], emails.slice().sort()]);

    await open(ref, emails[0] as string);
    await click(ref, emails[1] as string);
    // A second open of the same mail changes nothing.
    await open(ref, emails[0] as string);

    expect({ opened: await members(keys, 1), notOpened: await members(keys, 2), clicked: await members(keys, 3), notClicked: await members(keys, 4) }).toEqual({
      opened: ['clicker@example.com', 'opener@example.com'],
      notOpened: ['idle@example.com', 'quiet@example.com'],
      clicked: ['clicker@example.com'],
      notClicked: ['idle@example.com', 'opener@example.com', 'quiet@example.com'],
    });
    const { body } = await callSegments(keys, 'GET', 'segment/list');
    expect((body.message as { segments: { value: string[]; segment_emails_count: number; query_type: string | null }[] }).segments.map((segment) => [segment.value[0], segment.segment_emails_count, segment.query_type])).toEqual([
      [ref.utr, 2, null],
      [ref.utr, 2, null],
      [ref.utr, 1, null],
      [ref.utr, 3, null],
    ]);
  });

  test('an OR segment holds the union of its conditions, fields and engagement mixed; AND their intersection', async () => {
    const { keys, typeId, ref } = await mailedAccount();
    await open(ref, emails[1] as string);
    // Kochi: opener, quiet, never (indexes 0, 2, 4); opened: clicker.
    const rules: Rule[] = [['city', 'is', 'kochi'], ['email_opened', 'in single send', ref.utr]];
    expect((await save(keys, typeId, rules, { query_type: 'or' })).status).toBe(200);
    expect((await save(keys, typeId, rules, { query_type: 'AND' })).status).toBe(200);
    expect((await save(keys, typeId, [['city', 'is', 'pune'], ['email_opened', 'not in single send', ref.utr]])).status).toBe(200);
    expect(await members(keys, 1)).toEqual(['clicker@example.com', 'never@example.com', 'opener@example.com', 'quiet@example.com']);
    expect(await members(keys, 2)).toEqual([]);
    expect(await members(keys, 3)).toEqual(['idle@example.com']);
    // The opener of Kochi opens: the AND segment takes them in, as the OR one keeps them.
    await open(ref, emails[0] as string);
    expect(await members(keys, 2)).toEqual(['opener@example.com']);
    const { body } = await callSegments(keys, 'GET', 'segment/list');
    expect((body.message as { segments: { query_type: string | null }[] }).segments.map((segment) => segment.query_type)).toEqual(['or', 'and', null]);
    // An update without query_type stores null again (AND).
    const updated = await callSegments(keys, 'POST', 'segment/update', { body: segmentForm(typeId, 'Engaged', rules, { segment_id: '1' }) });
    expect(updated.status).toBe(200);
    expect(await members(keys, 1)).toEqual(['opener@example.com']);
  });

  test('in last days and not in last days; the daily slide moves those whose last open left the window', async () => {
    const { keys, typeId, ref } = await mailedAccount();
    const start = Date.parse('2031-03-10T12:00:00Z');
    setClock(() => new Date(start));
    try {
      await open(ref, emails[0] as string);
      await click(ref, emails[1] as string, start);
      expect((await save(keys, typeId, [['email_opened', 'in last days', '7']])).status).toBe(200);
      expect((await save(keys, typeId, [['email_opened', 'not in last days', '7']])).status).toBe(200);
      expect((await save(keys, typeId, [['email_clicked', 'in last days', '7']])).status).toBe(200);
      expect([await members(keys, 1), await members(keys, 2), await members(keys, 3)]).toEqual([
        ['clicker@example.com', 'opener@example.com'],
        ['idle@example.com', 'never@example.com', 'quiet@example.com'],
        ['clicker@example.com'],
      ]);

      // Seven days on, the opens of 10 March are still inside; eight days on, they are not.
      setClock(() => new Date(start + 7 * 86_400_000));
      await startWindowSlide(keys.account_id, '2031-03-11');
      await jobsSettled(keys.account_id);
      expect(await members(keys, 1)).toEqual(['clicker@example.com', 'opener@example.com']);
      setClock(() => new Date(start + 8 * 86_400_000));
      await startWindowSlide(keys.account_id, '2031-03-18');
      await jobsSettled(keys.account_id);
      expect([await members(keys, 1), await members(keys, 2), await members(keys, 3)]).toEqual([
        [],
        ['clicker@example.com', 'idle@example.com', 'never@example.com', 'opener@example.com', 'quiet@example.com'],
        [],
      ]);
      // An open today brings one back at once.
      await onFirstEngagement({ ...ref, utr: ref.utr }, emails[2] as string, 'open');
      expect(await members(keys, 1)).toEqual(['quiet@example.com']);
    } finally {
      resetClock();
    }
  });

  test('the mailed recipients join a not-in-single-send segment saved before the send when it completes', async () => {
    const keys = await newAccount();
    const type = await addContactType(keys.account_id, 'Readers');
    for (const email of emails) await addContact(keys.account_id, segmentContact(type.id, email), {});
    const ref = await storedSingleSend(keys.account_id);
    expect((await save(keys, type.id, [['email_opened', 'not in single send', ref.utr]])).status).toBe(200);
    expect(await members(keys, 1)).toEqual([]);
    for (const email of emails.slice(0, 3)) {
      const claim = await claimRecipient(ref, email);
      if (claim) await markRecipientSent(claim);
    }
    await onSingleSendCompleted(keys.account_id, ref.utr);
    await jobsSettled(keys.account_id);
    expect(await members(keys, 1)).toEqual(['clicker@example.com', 'opener@example.com', 'quiet@example.com']);
  });

  test('what a first open writes, with and without an engagement segment on the account', async () => {
    const plain = await mailedAccount();
    const engaged = await mailedAccount();
    expect((await save(engaged.keys, engaged.typeId, [['email_opened', 'in single send', engaged.ref.utr]])).status).toBe(200);

    const record = await measured(() => noteEngagement(plain.keys.account_id, 'someone@example.com', 'open'));
    const sameDay = await measured(() => noteEngagement(plain.keys.account_id, 'someone@example.com', 'open'));
    // The whole first open through the pixel: its limit, marker and counters, then the engagement.
    const withoutSegment = await measured(() => open(plain.ref, emails[0] as string));
    const withSegment = await measured(() => open(engaged.ref, emails[0] as string));
    const units = (m: { capacity: typeof record.capacity }) => ({ write: m.capacity.writeUnits, table: m.capacity.tableWriteUnits, index: m.capacity.indexWriteUnits, read: m.capacity.readUnits, commands: m.capacity.commands });
    console.log('engagement write units', JSON.stringify({ record: units(record), sameDay: units(sameDay), withoutSegment: units(withoutSegment), withSegment: units(withSegment) }));
    // The record: one item on the table and its entry on the day index.
    expect(units(record)).toMatchObject({ write: 2, table: 1, index: 1, commands: 1 });
    // The same address again that day: refused by its condition (billed 1 write unit, which DynamoDB
    // does not report for a refused write), no index entry moved.
    expect(units(sameDay)).toMatchObject({ write: 0, index: 0 });
    // With an engagement segment the open also reads the segment, the contact and its facts and
    // writes its recipient item and a counter (a transaction, which DynamoDB Local reports as one item).
    expect(withSegment.capacity.commands).toBeGreaterThan(withoutSegment.capacity.commands);
    expect(await members(engaged.keys, 1)).toEqual(['opener@example.com']);
  });
});
