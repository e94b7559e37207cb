// Send statistics: atomic counters on the single send or the automation, each event once per
// recipient (opens: unique once, total every time), and nothing recreated for a deleted send.
import { addAutomation, getAutomation } from '../../shared/automations/repository';
import { getItem } from '../../shared/table/records';
import { singleSendKey } from '../../shared/single-sends/keys';
import { deleteSingleSend } from '../../shared/single-sends/deletion';
import { getSingleSend } from '../../shared/single-sends/repository';
import { recordSendEvent } from '../../shared/statistics/event-counts';
import type { SendRef } from '../../shared/ledger/send-ref';
import { newAccount } from '../support/accounts';
import { useTestTable, type TestTable } from '../support/local-stack';
import { readySend } from '../support/sending';

let table: TestTable;

beforeAll(async () => {
  table = await useTestTable();
});

afterAll(async () => {
  await table.stop();
});

describe('single send statistics', () => {
  test('each event counts once per recipient; opens count once as unique and every time in total', async () => {
    // Prepare
    const account = await newAccount();
    const send = await readySend(account.account_id);
    const ref: SendRef = { kind: 'single-send', accountId: account.account_id, utr: send.utr };

    // Act
    await Promise.all([
      recordSendEvent(ref, 'triggered', 'ada@example.com'),
      recordSendEvent(ref, 'triggered', 'ADA@example.com'),
      recordSendEvent(ref, 'triggered', 'bob@example.com'),
      recordSendEvent(ref, 'delivered', 'ada@example.com'),
      recordSendEvent(ref, 'delivered', 'ada@example.com'),
    ]);
    for (const email of ['ada@example.com', 'ada@example.com', 'Ada@Example.com', 'bob@example.com']) await recordSendEvent(ref, 'open', email);
    await recordSendEvent(ref, 'bounce', 'bob@example.com');
    await recordSendEvent(ref, 'bounce', 'bob@example.com');
    await recordSendEvent(ref, 'unsubscribe', 'ada@example.com');
    await recordSendEvent(ref, 'unsubscribe', 'ada@example.com');

    // Assess
    expect(await getSingleSend(account.account_id, send.utr)).toMatchObject({
      triggered: 2,
      delivered: 1,
      unique_opens: 2,
      total_opens: 4,
      bounces: 1,
      unsubscribes: 1,
    });
  });

  test('concurrent opens of one recipient count one unique open', async () => {
    const account = await newAccount();
    const send = await readySend(account.account_id);
    const ref: SendRef = { kind: 'single-send', accountId: account.account_id, utr: send.utr };

    await Promise.all(Array.from({ length: 8 }, () => recordSendEvent(ref, 'open', 'ada@example.com')));

    expect(await getSingleSend(account.account_id, send.utr)).toMatchObject({ unique_opens: 1, total_opens: 8 });
  });

  test("a deleted send's events are dropped, never recreating the item", async () => {
    const account = await newAccount();
    const send = await readySend(account.account_id);
    await deleteSingleSend(account.account_id, send.utr);

    await recordSendEvent({ kind: 'single-send', accountId: account.account_id, utr: send.utr }, 'open', 'ada@example.com');
    await recordSendEvent({ kind: 'single-send', accountId: account.account_id, utr: send.utr }, 'open', 'ada@example.com');

    expect(await getItem(singleSendKey(account.account_id, send.utr))).toBeUndefined();
  });
});

describe('automation statistics', () => {
  test("count into the automation's totals, once per recipient and step", async () => {
    const account = await newAccount();
    const automation = await addAutomation(account.account_id, { type: 'welcome', target: null, automation_name: 'Welcome', unsubscribe_group_id: 0, exit_criteria: 0 });
    const step = (stepUtr: string): SendRef => ({ kind: 'automation-step', accountId: account.account_id, automationUtr: automation.utr, stepUtr });
    const first = step('11111111-1111-4111-8111-111111111111');
    const second = step('22222222-2222-4222-8222-222222222222');

    await recordSendEvent(first, 'triggered', 'ada@example.com');
    await recordSendEvent(first, 'triggered', 'ada@example.com');
    await recordSendEvent(second, 'triggered', 'ada@example.com');
    await recordSendEvent(first, 'open', 'ada@example.com');
    await recordSendEvent(first, 'open', 'ada@example.com');
    await recordSendEvent(first, 'delivered', 'ada@example.com');
    await recordSendEvent(first, 'bounce', 'ada@example.com');
    await recordSendEvent(first, 'unsubscribe', 'ada@example.com');

    expect(await getAutomation(account.account_id, automation.utr)).toMatchObject({
      total_triggered: 2,
      total_delivered: 1,
      total_unique_opens: 1,
      total_opens: 2,
      total_bounces: 1,
      total_unsubscribe: 1,
    });
  });
});
