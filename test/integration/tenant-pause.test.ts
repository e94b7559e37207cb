// One SES tenant per account, through the real pipeline (dispatcher, delivery queue, the sink): each
// account's mail goes under its own tenant, the sink refuses a paused tenant's mail as SES does, and a
// paused tenant holds that account's send (`waiting.reason` tenant-paused, its job booked to look
// again) while another account's send completes; once SES enables the tenant, the send goes on.
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { getSingleSend } from '../../shared/single-sends/repository';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { MailSendingPausedError, sendMail } from '../../shared/mail/mailer';
import { getAccountTenant } from '../../shared/tenants/repository';
import { localTenantResources, setLocalTenantStatus } from '../../shared/tenants/local-tenants';
import { ensureAccountTenant } from '../../shared/tenancy/tenant-service';
import { tenantPausedReason } from '../../shared/send-gates/tenant-gate-service';
import { setAccountTenantStatus } from '../../infra/scripts/tenants-status';
import { jobName, pendingJobTimes } from '../support/single-sends';
import { accountWithContacts, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
}, 120_000);

afterAll(async () => {
  await env.stop();
});

async function runDispatch(accountId: number, utr: string, resume = false): Promise<void> {
  await dispatchHandler({ accountId, utr, ...(resume ? { resume } : {}) });
  await localQueueIdle();
}

describe('an account\'s SES tenant', () => {
  test('is made before its first send, with the send\'s sender identity (address and domain) associated', async () => {
    const a = await accountWithContacts(2);
    const send = await readySend(a.accountId, { recipient_id: [{ id: String(a.typeId), table: 'contacts_' }], from_sender: 'news@tenant-a.example' });
    await runDispatch(a.accountId, send.utr);
    const tenant = await getAccountTenant(a.accountId);
    expect(tenant).toEqual({
      name: `${process.env.TABLE_NAME}-a${a.accountId}`.replace(/[^A-Za-z0-9_-]/g, '-'),
      arn: expect.stringMatching(/^arn:aws:ses:us-east-1:000000000000:tenant\//),
      status: 'enabled',
      checked_at: expect.any(String),
      identities: ['news@tenant-a.example', 'tenant-a.example'],
    });
    expect(await localTenantResources(tenant?.name ?? '')).toEqual([
      'arn:aws:ses:us-east-1:000000000000:identity/news@tenant-a.example',
      'arn:aws:ses:us-east-1:000000000000:identity/tenant-a.example',
    ]);
    expect((await getSingleSend(a.accountId, send.utr)).status).toBe(3);
    expect(await mailsTo(env.sink, a.emails)).toHaveLength(2);
  });

  test('the sink refuses a paused tenant\'s mail with SendingPausedException, and takes it again once enabled', async () => {
    const a = await accountWithContacts(0);
    const tenant = await ensureAccountTenant(a.accountId);
    const mail = { from: 'news@acme.example', to: ['someone@example.com'], subject: 'Hi', html: '<p>Hi</p>', tenantName: tenant?.name as string };
    await setLocalTenantStatus(mail.tenantName, 'paused');
    await expect(sendMail(mail)).rejects.toBeInstanceOf(MailSendingPausedError);
    await setLocalTenantStatus(mail.tenantName, 'enabled');
    await expect(sendMail(mail)).resolves.toEqual({ messageId: expect.any(String) });
  });

  test('paused: that account\'s send is held with tenant-paused while another account\'s completes; enabled again, it goes on', async () => {
    // Prepare: two accounts with their tenants; A's is paused by SES.
    const a = await accountWithContacts(3);
    const b = await accountWithContacts(3);
    const tenantA = await setAccountTenantStatus(a.accountId, 'paused');
    expect(tenantA).toEqual({ account_id: a.accountId, tenant: expect.stringMatching(new RegExp(`-a${a.accountId}$`)), status: 'paused' });
    const sendA = await readySend(a.accountId, { recipient_id: [{ id: String(a.typeId), table: 'contacts_' }] });
    const sendB = await readySend(b.accountId, { recipient_id: [{ id: String(b.typeId), table: 'contacts_' }] });

    // Act
    await runDispatch(a.accountId, sendA.utr);
    await runDispatch(b.accountId, sendB.utr);

    // Assess: A waits, saying why, with its dispatch booked to look again; B is done.
    const heldA = await getSingleSend(a.accountId, sendA.utr);
    expect(heldA.waiting).toEqual({
      reason: tenantPausedReason,
      message: `The account's SES tenant ${tenantA.tenant} is paused by SES; sending continues from where it stopped once SES enables it again.`,
      since: expect.any(String),
      retry_at: expect.any(String),
    });
    expect(await pendingJobTimes(jobName(a.accountId, sendA.utr))).toEqual([heldA.waiting?.retry_at]);
    expect(await mailsTo(env.sink, a.emails)).toEqual([]);
    expect((await getSingleSend(b.accountId, sendB.utr)).status).toBe(3);
    expect(await mailsTo(env.sink, b.emails)).toHaveLength(3);
    expect((await getAccountTenant(a.accountId))?.status).toBe('paused');

    // Act: SES enables the tenant; the booked job runs.
    expect(await setAccountTenantStatus(a.accountId, 'enabled')).toEqual({ ...tenantA, status: 'enabled' });
    await runDispatch(a.accountId, sendA.utr, true);

    // Assess: every recipient of A mailed once, the send complete and no longer waiting.
    const doneA = await getSingleSend(a.accountId, sendA.utr);
    expect(doneA.status).toBe(3);
    expect(doneA.waiting).toBeUndefined();
    expect((await mailsTo(env.sink, a.emails)).map((mail) => mail.destination.to[0]).sort()).toEqual([...a.emails].sort());
    expect((await getAccountTenant(a.accountId))?.status).toBe('enabled');
  });
});
