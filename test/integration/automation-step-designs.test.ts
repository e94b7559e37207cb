// Automation steps keep their designs in items of their own: listing an automation's steps (every
// enrolment, import chunk, segment join, runner pass) reads only small items whatever the designs
// weigh, a design is read when a step is rendered and then once per container, and steps stored with
// their design inline (before the split) still list and render. Units measured with DynamoDB's
// ReturnConsumedCapacity on DynamoDB Local.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { automationStepKey, automationStepUtrKey } from '../../shared/automations/keys';
import { getAutomation } from '../../shared/automations/repository';
import { stepContent, stepDesign } from '../../shared/automation-runs/step-content';
import { addAutomationStep, copyAutomationSteps, listAutomationSteps, listAutomationStepsPage, type AutomationStepInput } from '../../shared/automations/steps';
import { db, tableName } from '../../shared/table/client';
import { automationWorld, call, createAutomation, schedulesOf, type AutomationWorld } from '../support/automations';
import { measured } from '../support/consumed-capacity';

jest.setTimeout(120_000);

/** An HTML design of about `kilobytes` KB. */
function designOf(kilobytes: number, tag: string): string {
  const paragraph = `<p>${tag} ${'x'.repeat(1000)}</p>`;
  return `<html><body>${paragraph.repeat(kilobytes)}</body></html>`;
}

function stepInput(world: AutomationWorld, html: string | null, subject = 'Hello'): AutomationStepInput {
  return { sender_id: world.senderId, template_id: 2, subject, waiting_period: 0, waiting_type: 'instantly', preview_img: 'newsletter.svg', template_json: null, template_html: html };
}

async function automationWithSteps(world: AutomationWorld, count: number, kilobytes: number): Promise<string> {
  const utr = await createAutomation(world);
  const automation = await getAutomation(world.accountId, utr);
  for (let i = 0; i < count; i++) await addAutomationStep(world.accountId, { utr, id: automation.id }, stepInput(world, designOf(kilobytes, `step ${i}`), `Step ${i}`));
  return utr;
}

describe('automation step designs apart from the steps', () => {
  let world: AutomationWorld;

  beforeAll(async () => {
    world = await automationWorld();
  });

  test('listing an automation\u2019s steps costs the same read units with 300 KB designs as with 1 KB ones', async () => {
    // Prepare
    const light = await automationWithSteps(world, 5, 1);
    const heavy = await automationWithSteps(world, 5, 300);

    // Act
    const lightRead = await measured(() => listAutomationSteps(world.accountId, light));
    const heavyRead = await measured(() => listAutomationSteps(world.accountId, heavy));

    // Assess: one Query of five small items (a read unit is 4 KB, eventually consistent reads halve it).
    console.log(`listAutomationSteps, 5 steps: ${lightRead.capacity.readUnits} read units with 1 KB designs, ${heavyRead.capacity.readUnits} with 300 KB designs`);
    expect(heavyRead.result.map((step) => step.subject)).toEqual(['Step 0', 'Step 1', 'Step 2', 'Step 3', 'Step 4']);
    expect(heavyRead.result[0]).not.toHaveProperty('template_html');
    expect(heavyRead.capacity.readUnits).toBe(lightRead.capacity.readUnits);
    expect(heavyRead.capacity.readUnits).toBeLessThanOrEqual(1);
  });

  test('a step\u2019s design is read when it is rendered, and once per container for the same step version', async () => {
    // Prepare
    const utr = await automationWithSteps(world, 1, 100);
    const automation = await getAutomation(world.accountId, utr);
    const [step] = await listAutomationSteps(world.accountId, utr);

    // Act
    const first = await measured(() => stepContent(world.accountId, automation, step!));
    const again = await measured(() => stepDesign(world.accountId, utr, step!));

    // Assess
    expect(first.result.content.designHtml).toBe(designOf(100, 'step 0'));
    expect(first.capacity.readUnits).toBeGreaterThan(10);
    expect(again.result.template_html).toBe(designOf(100, 'step 0'));
    expect(again.capacity).toMatchObject({ readUnits: 0, commands: 0 });
  });

  test('the schedule list shows each step with its design, as before', async () => {
    // Prepare
    const utr = await automationWithSteps(world, 2, 2);

    // Act
    const steps = await schedulesOf(world, utr);

    // Assess
    expect(steps.map((step) => [step.subject, step.template_html, step.template_json])).toEqual([
      ['Step 0', designOf(2, 'step 0'), null],
      ['Step 1', designOf(2, 'step 1'), null],
    ]);
  });

  test('duplicating an automation of 12 steps of 350 KB copies every design (over 4 MB in all)', async () => {
    // Prepare
    const utr = await automationWithSteps(world, 12, 349);

    // Act
    const result = await call(world.keys, 'GET', 'automations/duplicate', { query: { utr } });

    // Assess
    expect(result.status).toBe(200);
    const copyUtr = (result.body.message as { utr: string }).utr;
    const copied = await listAutomationStepsPage(world.accountId, copyUtr, { limit: 100 });
    expect(copied.items.map((step) => step.template_html)).toEqual(Array.from({ length: 12 }, (_, i) => designOf(349, `step ${i}`)));
  });

  test('a step stored with its design inline still lists, shows and renders its design', async () => {
    // Prepare: the item as steps were stored before designs had items of their own.
    const utr = await createAutomation(world);
    const automation = await getAutomation(world.accountId, utr);
    const step = {
      id: 900_000 + automation.id,
      user_id: world.accountId,
      automation_id: automation.id,
      ...stepInput(world, designOf(3, 'inline'), 'Inline'),
      utr: '11111111-2222-4333-8444-555555555555',
      created_at: '2026-01-01T00:00:00.000000Z',
      updated_at: '2026-01-01T00:00:00.000000Z',
    };
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...automationStepKey(world.accountId, utr, step.id), entity: 'automation-step', automation_utr: utr, ...step } }));
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...automationStepUtrKey(world.accountId, step.utr), entity: 'automation-step-utr', automation_utr: utr, step_id: step.id } }));

    // Act
    const [summary] = await listAutomationSteps(world.accountId, utr);
    const page = await listAutomationStepsPage(world.accountId, utr, { limit: 10 });
    const mail = await stepContent(world.accountId, automation, summary!);
    const copied = await copyAutomationSteps(world.accountId, utr, { utr: '22222222-2222-4333-8444-555555555555', id: 999 });

    // Assess
    const { template_html: _html, template_json: _json, ...withoutDesign } = step;
    expect(summary).toEqual(withoutDesign);
    expect(page.items).toEqual([step]);
    expect(mail.content.designHtml).toBe(designOf(3, 'inline'));
    expect(copied).toBe(1);
  });
});
