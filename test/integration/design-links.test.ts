// Designs are saved only without links that run code: single sends (create and update) and
// automation steps refuse an HTML or JSON design linking to `javascript:`, `data:` or `vbscript:`,
// with the field named, and store nothing; placeholders in links are allowed (checked per mail).
import { multipart } from '../support/events';
import { addStep, automationWorld, call as callAutomations, createAutomation, schedulesOf, stepFields, type AutomationWorld } from '../support/automations';
import { callSingleSends as call, newSendingAccount, sendFields, type SendingAccount } from '../support/single-sends';

const htmlMessage = 'The template html field must not link to javascript:, data: or vbscript: URLs.';
const jsonMessage = 'The template json field must not link to javascript:, data: or vbscript: URLs.';
const buttonDesign = (url: string) =>
  JSON.stringify({ version: 1, preheader: '', theme: {}, blocks: [{ type: 'button', label: 'Open', url }] });

function refused(errors: Record<string, string[]>) {
  return { status: 422, body: { status: 'failed', errors } };
}

describe('single sends', () => {
  let account: SendingAccount;

  beforeAll(async () => {
    account = await newSendingAccount('Design links');
  });

  const create = (fields: Record<string, string | number>) => call(account.keys, 'POST', 'single/send/create', { body: multipart({ ...sendFields(account), template_id: 1, ...fields }) });

  it.each([
    ['<a href="javascript:alert(1)">Win</a>'],
    ['<a href=" JaVaScRiPt&#58;alert(1)">Win</a>'],
    ["<a href='data:text/html;base64,PHNjcmlwdD4='>Win</a>"],
    ['<p><a href="https://ok.example">ok</a><a href=vbscript:msgbox(1)>Win</a></p>'],
  ])('refuses the HTML design %j', async (html) => {
    expect(await create({ template_html: html })).toEqual(refused({ template_html: [htmlMessage] }));
  });

  it('refuses a JSON design whose button links to javascript:', async () => {
    expect(await create({ template_json: buttonDesign('javascript:alert(1)') })).toEqual(refused({ template_json: [jsonMessage] }));
  });

  it('accepts http(s), mailto and placeholder links, and the words in text', async () => {
    const html = '<p>Read about javascript: and data: here</p><a href="https://x.example/?u=((email))">a</a><a href="((website))">b</a><a href="mailto:a@x.example">c</a>';
    expect((await create({ template_html: html })).status).toBe(200);
    expect((await create({ template_json: buttonDesign('https://x.example/') })).status).toBe(200);
  });

  it('refuses the same on update and keeps the stored design', async () => {
    const created = await create({ template_html: '<a href="https://x.example/">a</a>' });
    const { utr } = created.body.message as { utr: string };
    const update = await call(account.keys, 'POST', 'single/send/update', { body: multipart({ ...sendFields(account), template_id: 1, utr, template_html: '<a href="javascript:x">a</a>' }) });
    expect(update).toEqual(refused({ template_html: [htmlMessage] }));
    const details = await call(account.keys, 'GET', 'single-send/details', { query: { utr } });
    expect((details.body.message as { singleSend: { template_html: string }[] }).singleSend[0]?.template_html).toBe('<a href="https://x.example/">a</a>');
  });
});

describe('automation steps', () => {
  let world: AutomationWorld;
  let automationUtr: string;

  beforeAll(async () => {
    world = await automationWorld();
    automationUtr = await createAutomation(world);
  });

  const createStep = (fields: Record<string, string | number>) =>
    callAutomations(world.keys, 'POST', 'automations/schedule/create', { body: multipart(stepFields(world, automationUtr, fields)) });

  it('refuses an HTML or JSON design with a javascript: link, and adds no step', async () => {
    expect(await createStep({ template_html: '<a href="javascript:alert(1)">x</a>' })).toEqual(refused({ template_html: [htmlMessage] }));
    expect(await createStep({ template_json: buttonDesign('javascript:alert(1)') })).toEqual(refused({ template_json: [jsonMessage] }));
    expect(await schedulesOf(world, automationUtr)).toEqual([]);
  });

  it('accepts a design whose link a placeholder fills', async () => {
    await addStep(world, automationUtr, { template_html: '<a href="((website))">x</a>' });
    expect(await schedulesOf(world, automationUtr)).toHaveLength(1);
  });
});
