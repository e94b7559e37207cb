// Test mails are the account's mail too: they go under its SES tenant, so a tenant SES paused is
// paused for them as for the account's sends (the sink refuses the tenant's mail as SES does).
import { randomUUID } from 'node:crypto';
import { handler as testMailsHandler } from '../../functions/test-mails/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { setLocalTenantStatus } from '../../shared/tenants/local-tenants';
import { associateIdentity, ensureAccountTenant } from '../../shared/tenancy/tenant-service';
import { apiEvent, authHeaders, multipart } from '../support/events';
import { startMailSink, stopMailSink } from '../support/senders';
import { mailsTo } from '../support/sending';
import { indexed, newSendingAccount, storedSingleSend, type SendingAccount } from '../support/single-sends';

let sink: SesSink;
let account: SendingAccount;

beforeAll(async () => {
  sink = await startMailSink();
  await seedReferenceData();
  account = await newSendingAccount('Tenant tester');
}, 120_000);

afterAll(async () => {
  await stopMailSink(sink);
});

async function sendTest(utr: string, address: string) {
  const response = await testMailsHandler(
    apiEvent({ method: 'POST', path: 'single/send/test', body: multipart({ utr, ...indexed('emails', [address]) }), headers: authHeaders(account.keys) }),
  );
  return { status: response.statusCode, body: JSON.parse(response.body ?? 'null') as unknown, retryAfter: response.headers?.['retry-after'] ?? response.headers?.['Retry-After'] };
}

test('a test mail goes under the account\'s tenant: refused while SES pauses it, mailed once it is enabled', async () => {
  // Prepare: a stored send from the account's sender, whose address is associated with its tenant.
  const accountId = account.keys.account_id;
  const send = await storedSingleSend(account);
  const tenant = await ensureAccountTenant(accountId);
  expect(await associateIdentity(accountId, account.sender.from_email)).toBe(true);
  await setLocalTenantStatus(tenant?.name ?? '', 'paused');
  const paused = `tester-${randomUUID()}@example.com`;
  const enabled = `tester-${randomUUID()}@example.com`;

  // Act and assess: paused, SES refuses the tenant's mail and the test says so.
  expect(await sendTest(send.utr, paused)).toEqual({ status: 503, body: { status: 'failed', errors: 'Mail sending is paused. Try again later.' }, retryAfter: '300' });
  expect(await mailsTo(sink, [paused])).toHaveLength(0);

  await setLocalTenantStatus(tenant?.name ?? '', 'enabled');
  expect(await sendTest(send.utr, enabled)).toEqual({ status: 200, body: { status: 'success', message: 'Test Mail Sent' }, retryAfter: undefined });
  expect(await mailsTo(sink, [enabled])).toHaveLength(1);
});
