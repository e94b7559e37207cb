// automations/stats: each step's counters in step order (deliveries, opens, clicks, bounces,
// complaints, unsubscribes, each once per recipient except the opens and clicks totals), a step with
// nothing counted shows zeros, and another account's automation is not found.
import { automationStepUtrKey } from '../../shared/automations/keys';
import { getAutomation } from '../../shared/automations/repository';
import { getItem } from '../../shared/table/records';
import { recordClick, recordSendEvent } from '../../shared/statistics/event-counts';
import type { SendRef } from '../../shared/ledger/send-ref';
import { newAccount } from '../support/accounts';
import { addStep, automationWorld, call, createAutomation, schedulesOf, type AutomationWorld } from '../support/automations';
import { useTestTable, type TestTable } from '../support/local-stack';

let table: TestTable;

beforeAll(async () => {
  table = await useTestTable();
});

afterAll(async () => {
  await table.stop();
});

const zero = { delivered: 0, opens: 0, unique_opens: 0, machine_opens: 0, clicks: 0, unique_clicks: 0, bot_clicks: 0, bounces: 0, complaints: 0, unsubscribes: 0 };

/** A draft automation (never live: nothing is due) with two steps. */
async function twoSteps(world: AutomationWorld): Promise<{ utr: string; steps: { id: number; utr: string }[] }> {
  const utr = await createAutomation(world);
  await addStep(world, utr, { subject: 'Welcome aboard' });
  await addStep(world, utr, { subject: 'Two days in' });
  const steps = (await schedulesOf(world, utr)).map((step) => ({ id: Number(step.id), utr: String(step.utr) }));
  return { utr, steps };
}

describe('automations/stats', () => {
  test("each step's counters, in step order", async () => {
    // Prepare
    const world = await automationWorld();
    const { utr, steps } = await twoSteps(world);
    const [first, second] = steps as [{ id: number; utr: string }, { id: number; utr: string }];
    const ref: SendRef = { kind: 'automation-step', accountId: world.accountId, automationUtr: utr, stepUtr: first.utr };

    // Act
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com']) await recordSendEvent(ref, 'delivered', email);
    await recordSendEvent(ref, 'delivered', 'ada@example.com');
    for (let i = 0; i < 3; i++) await recordSendEvent(ref, 'open', 'ada@example.com');
    await recordSendEvent(ref, 'open', 'bob@example.com');
    await recordClick(ref, 'ada@example.com', 'https://shop.example/a');
    await recordClick(ref, 'ada@example.com', 'https://shop.example/b');
    await recordClick(ref, 'ada@example.com', 'https://shop.example/a');
    await recordClick(ref, 'bob@example.com', 'https://shop.example/a');
    await recordSendEvent(ref, 'bounce', 'cy@example.com');
    await recordSendEvent(ref, 'complaint', 'bob@example.com');
    await recordSendEvent(ref, 'complaint', 'bob@example.com');
    await recordSendEvent(ref, 'unsubscribe', 'ada@example.com');
    const result = await call(world.keys, 'GET', 'automations/stats', { query: { utr } });

    // Assess
    expect(result).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: {
          steps: [
            { id: first.id, subject: 'Welcome aboard', delivered: 3, opens: 4, unique_opens: 2, machine_opens: 0, clicks: 4, unique_clicks: 2, bot_clicks: 0, bounces: 1, complaints: 1, unsubscribes: 1 },
            { id: second.id, subject: 'Two days in', ...zero },
          ],
        },
      },
    });
    // The automation's own totals still count (the spec's fields; it has no complaints or clicks).
    expect(await getAutomation(world.accountId, utr)).toMatchObject({ total_delivered: 3, total_opens: 4, total_unique_opens: 2, total_bounces: 1, total_unsubscribe: 1 });
  });

  test('an automation without steps answers no steps', async () => {
    const world = await automationWorld();
    const utr = await createAutomation(world);

    expect(await call(world.keys, 'GET', 'automations/stats', { query: { utr } })).toEqual({ status: 200, body: { status: 'success', message: { steps: [] } } });
  });

  test("a deleted step's events are dropped, never recreating it", async () => {
    const world = await automationWorld();
    const { utr, steps } = await twoSteps(world);
    const [first, second] = steps as [{ id: number; utr: string }, { id: number; utr: string }];
    await call(world.keys, 'DELETE', 'automations/schedule/delete', { query: { utr: first.utr } });
    const ref: SendRef = { kind: 'automation-step', accountId: world.accountId, automationUtr: utr, stepUtr: first.utr };

    await recordClick(ref, 'ada@example.com', 'https://shop.example/a');
    await recordSendEvent(ref, 'open', 'ada@example.com');

    expect(((await call(world.keys, 'GET', 'automations/stats', { query: { utr } })).body.message as { steps: unknown[] }).steps).toEqual([
      { id: second.id, subject: 'Two days in', ...zero },
    ]);
    expect(await getItem(automationStepUtrKey(world.accountId, first.utr))).toBeUndefined();
  });

  test("an unknown automation or another account's: not found; no credentials: 401; no utr: 422", async () => {
    const world = await automationWorld();
    const utr = await createAutomation(world);
    const stranger = await newAccount();

    const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
    expect(await call(stranger, 'GET', 'automations/stats', { query: { utr } })).toEqual(notFound);
    expect(await call(world.keys, 'GET', 'automations/stats', { query: { utr: '00000000-0000-4000-8000-000000000000' } })).toEqual(notFound);
    expect(await call(world.keys, 'GET', 'automations/stats', { query: { utr: 'nope' } })).toEqual(notFound);
    expect((await call(undefined, 'GET', 'automations/stats', { query: { utr } })).status).toBe(401);
    expect(await call(world.keys, 'GET', 'automations/stats')).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
  });
});
