// SES's control plane as the account tenants use it, on the local adapter with SES's answers injected:
// a tenant's status is read at most once in five minutes however often the step runner and the
// dispatcher ask; a throttled association never fails a dispatch (the mail goes without the tenant,
// and the next dispatch associates it); SES refusing a new tenant for the quota is remembered for an
// hour by every container, instead of being asked again at every dispatch.
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { openAccount } from '../../shared/tenancy/account-service';
import { createAccount } from '../../shared/accounts/repository';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { getSingleSend } from '../../shared/single-sends/repository';
import { localTenants } from '../../shared/tenants/local-tenants';
import { getAccountTenant } from '../../shared/tenants/repository';
import { TenantLimitError } from '../../shared/tenants/tenants';
import { ensureAccountTenant, forgetTenantLimit, tenantLimitRetryMs } from '../../shared/tenancy/tenant-service';
import { resetClock, setClock } from '../../shared/time';
import { sesError } from '../support/fake-ses';
import { accountWithContacts, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;
let now = Date.now();

beforeAll(async () => {
  env = await startSendingEnvironment();
  setClock(() => new Date(now));
}, 120_000);

afterAll(async () => {
  resetClock();
  await env.stop();
});

afterEach(() => {
  jest.restoreAllMocks();
  forgetTenantLimit();
});

const minutes = (count: number) => count * 60_000;

describe("the tenant's status", () => {
  test('is read from SES at most once in five minutes, however often a run asks', async () => {
    const { account_id: accountId } = await openAccount('Cached');
    const asked = jest.spyOn(localTenants, 'tenant');
    // The step runner asks every minute; the tenant was made (and its status read) just now.
    for (let minute = 1; minute <= 4; minute++) {
      now += minutes(1);
      expect(await ensureAccountTenant(accountId)).toMatchObject({ status: 'enabled' });
    }
    expect(asked).not.toHaveBeenCalled();
    now += minutes(1.5);
    await ensureAccountTenant(accountId);
    await ensureAccountTenant(accountId);
    expect(asked.mock.calls).toEqual([[(await getAccountTenant(accountId))?.name]]);
  });
});

describe('a throttled tenant association', () => {
  test("never fails the dispatch: the mail goes without the tenant, and the next dispatch associates the sender's address", async () => {
    const a = await accountWithContacts(2);
    await ensureAccountTenant(a.accountId);
    const first = await readySend(a.accountId, { from_sender: `news-${a.accountId}@throttled.example`, recipient_id: [{ id: String(a.typeId), table: 'contacts_' }] });
    const associate = jest.spyOn(localTenants, 'associate').mockRejectedValue(sesError('TooManyRequestsException'));

    await dispatchHandler({ accountId: a.accountId, utr: first.utr });
    await localQueueIdle();

    expect(associate).toHaveBeenCalled();
    expect((await getSingleSend(a.accountId, first.utr)).status).toBe(3);
    expect((await mailsTo(env.sink, a.emails)).map((mail) => mail.destination.to[0]).sort()).toEqual([...a.emails].sort());
    expect((await getAccountTenant(a.accountId))?.identities).toEqual([]);

    associate.mockRestore();
    const second = await readySend(a.accountId, { from_sender: `news-${a.accountId}@throttled.example`, sender_id: first.sender_id, recipient_id: [{ id: String(a.typeId), table: 'contacts_' }] });
    await dispatchHandler({ accountId: a.accountId, utr: second.utr });
    await localQueueIdle();
    expect((await getAccountTenant(a.accountId))?.identities).toEqual([`news-${a.accountId}@throttled.example`, 'throttled.example']);
  });
});

describe("SES's tenant quota", () => {
  test('a refused tenant is remembered for an hour by every container, and asked again after', async () => {
    // What the SES adapter throws for LimitExceededException (test/unit/ses-tenants.test.ts).
    const create = jest.spyOn(localTenants, 'createTenant').mockImplementation((name) => Promise.reject(new TenantLimitError(name)));
    const { account_id: first } = await createAccount('Over the quota');
    const { account_id: second } = await createAccount('Also over');

    expect(await ensureAccountTenant(first)).toBeUndefined();
    expect(await ensureAccountTenant(first)).toBeUndefined();
    // Another container knows it from the table.
    forgetTenantLimit();
    expect(await ensureAccountTenant(second)).toBeUndefined();
    expect(create).toHaveBeenCalledTimes(1);

    now += tenantLimitRetryMs + 1;
    create.mockRestore();
    expect(await ensureAccountTenant(second)).toMatchObject({ status: 'enabled', identities: [] });
    expect(await getAccountTenant(first)).toBeUndefined();
  });
});
