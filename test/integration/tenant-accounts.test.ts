// The account side of SES tenants on the local adapter: a new account gets its tenant at once; an
// older account gets it lazily, with its sender domains associated; other identities are associated
// on request, once; and a tenant SES pauses in the middle of a send is read into the account by the
// deliverer while the refused batch keeps its place and is mailed, once, when the tenant sends again.
import type { SQSEvent } from 'aws-lambda';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { openAccount } from '../../shared/tenancy/account-service';
import { createAccount } from '../../shared/accounts/repository';
import { registerSenderDomain } from '../../shared/sender-verification/domain-service';
import { localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { getSingleSend } from '../../shared/single-sends/repository';
import { getAccountTenant } from '../../shared/tenants/repository';
import { localTenantResources, setLocalTenantStatus } from '../../shared/tenants/local-tenants';
import { associateIdentity, ensureAccountTenant } from '../../shared/tenancy/tenant-service';
import { accountWithContacts, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
}, 120_000);

afterAll(async () => {
  await env.stop();
});

const identityArn = (identity: string) => `arn:aws:ses:us-east-1:000000000000:identity/${identity}`;
const nameOf = (accountId: number) => `${process.env.TABLE_NAME}-a${accountId}`.replace(/[^A-Za-z0-9_-]/g, '-');

describe('the account\'s SES tenant', () => {
  test('a new account has its tenant at once, enabled, under its own name', async () => {
    const first = await openAccount('First');
    const second = await openAccount('Second');
    const tenant = await getAccountTenant(first.account_id);
    expect(tenant).toEqual({
      name: nameOf(first.account_id),
      arn: `arn:aws:ses:us-east-1:000000000000:tenant/${nameOf(first.account_id)}/local`,
      status: 'enabled',
      checked_at: expect.any(String),
      identities: [],
    });
    expect((await getAccountTenant(second.account_id))?.name).toBe(nameOf(second.account_id));
  });

  test('an older account gets it lazily, with the sender domains it registered associated', async () => {
    const { account_id: accountId } = await createAccount('Older');
    const domain = `older-${accountId}.example`;
    expect(await registerSenderDomain(accountId, domain)).toMatchObject({ domain });
    expect(await getAccountTenant(accountId)).toBeUndefined();
    const tenant = await ensureAccountTenant(accountId);
    expect(tenant).toMatchObject({ name: nameOf(accountId), status: 'enabled', identities: [domain] });
    expect(await localTenantResources(nameOf(accountId))).toEqual([identityArn(domain)]);
  });

  test('associateIdentity associates an address or an identity ARN once, and records it', async () => {
    const { account_id: accountId } = await openAccount('Identities');
    expect(await associateIdentity(accountId, 'Hello@Solo.example')).toBe(true);
    expect(await associateIdentity(accountId, identityArn('brand.example'))).toBe(true);
    expect(await associateIdentity(accountId, 'hello@solo.example')).toBe(true);
    expect((await getAccountTenant(accountId))?.identities).toEqual(['brand.example', 'hello@solo.example']);
    expect(await localTenantResources(nameOf(accountId))).toEqual([identityArn('brand.example'), identityArn('hello@solo.example')]);
  });

  test('an account that does not exist gets no tenant record', async () => {
    expect(await ensureAccountTenant(987_654_321)).toBeUndefined();
    expect(await getAccountTenant(987_654_321)).toBeUndefined();
  });
});

describe('a tenant paused by SES in the middle of a send', () => {
  test('the refused batch keeps its place unmailed and is mailed once later (the stall watchdog reads the pause: send-stall-watchdog.test.ts)', async () => {
    // Prepare: a send whose tenant is enabled at dispatch; SES pauses it as the batch is delivered.
    const a = await accountWithContacts(3);
    const send = await readySend(a.accountId, { recipient_id: [{ id: String(a.typeId), table: 'contacts_' }] });
    const seen: number[] = [];
    const unregister = registerLocalConsumer('deliveries', async (event: SQSEvent) => {
      const name = nameOf(a.accountId);
      if (seen.length === 0) await setLocalTenantStatus(name, 'paused');
      const answer = await deliverHandler(event);
      seen.push(answer?.batchItemFailures.length ?? 0);
      // SES enables the tenant again before the batch comes back.
      await setLocalTenantStatus(name, 'enabled');
      return answer;
    });
    try {
      // Act
      await dispatchHandler({ accountId: a.accountId, utr: send.utr });
      await localQueueIdle();
    } finally {
      unregister();
    }

    // Assess: refused and handed back unmailed, then mailed once each.
    expect(seen[0]).toBe(1);
    expect(seen.at(-1)).toBe(0);
    const mails = await mailsTo(env.sink, a.emails);
    expect(mails.map((mail) => mail.destination.to[0]).sort()).toEqual([...a.emails].sort());
    expect((await getSingleSend(a.accountId, send.utr)).status).toBe(3);
  });
});
