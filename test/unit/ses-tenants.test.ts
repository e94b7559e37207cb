// The SES adapter of the tenant port on a fake SESv2 client: the commands it sends, how it reads SES's
// answers (sending status, tenants made by an earlier attempt, associations made or impossible), and a
// region without tenant management: detected, said once per container, and mail sent without a tenant.
import { CreateTenantCommand, CreateTenantResourceAssociationCommand, GetTenantCommand } from '@aws-sdk/client-sesv2';
import { resetConfig } from '../../shared/config';
import { log } from '../../shared/log';
import { sesTenantAdapter } from '../../shared/tenants/ses-tenants';
import { tenantNameForMail } from '../../shared/tenants/sending-tenant';
import { noteTenantsUnavailable, resetTenantAvailability, tenantsOffered } from '../../shared/tenants/tenant-status-port';
import { sesResourceArn, TenantLimitError, tenantNameOf, TenantsUnavailableError } from '../../shared/tenants/tenants';
import { restoreRuntimeAfterEach, scriptedSesClient, sesError, type SesAnswer } from '../support/fake-ses';

function fakeClient(...answers: SesAnswer[]) {
  const { client, sent } = scriptedSesClient(...answers);
  return { adapter: sesTenantAdapter(() => client), sent };
}

const arn = 'arn:aws:ses:eu-west-1:123456789012:tenant/Stack-Data-a7/tn-123';

beforeEach(() => {
  process.env.TABLE_NAME = 'Stack-Data';
  process.env.AWS_REGION = 'eu-west-1';
  resetConfig();
  resetTenantAvailability();
});
restoreRuntimeAfterEach(resetConfig);
afterEach(() => {
  delete process.env.AWS_REGION;
  resetTenantAvailability();
});

describe('tenant names and ARNs', () => {
  test('a name is the table name and the account id, within SES\'s 64 allowed characters', () => {
    expect(tenantNameOf('EmailCampaign-DataTable1A2B-XYZ', 42)).toBe('EmailCampaign-DataTable1A2B-XYZ-a42');
    expect(tenantNameOf('odd.name/with:chars', 7)).toBe('odd-name-with-chars-a7');
    const long = tenantNameOf('x'.repeat(100), 123456);
    expect(long).toHaveLength(64);
    expect(long.endsWith('-a123456')).toBe(true);
  });

  test('resource ARNs are built in the tenant\'s region and AWS account', () => {
    expect(sesResourceArn({ arn }, 'identity', 'acme.com')).toBe('arn:aws:ses:eu-west-1:123456789012:identity/acme.com');
    expect(sesResourceArn({ arn }, 'configuration-set', 'events')).toBe('arn:aws:ses:eu-west-1:123456789012:configuration-set/events');
  });
});

describe('SES tenant adapter', () => {
  test('creates a tenant with CreateTenant and reads its sending status', async () => {
    const { adapter, sent } = fakeClient({ TenantName: 'Stack-Data-a7', TenantArn: arn, SendingStatus: 'ENABLED' });
    expect(await adapter.createTenant('Stack-Data-a7')).toEqual({ name: 'Stack-Data-a7', arn, status: 'enabled' });
    expect(sent).toEqual([{ command: CreateTenantCommand.name, input: { TenantName: 'Stack-Data-a7' } }]);
  });

  test('a tenant made by an earlier attempt is read with GetTenant and answered', async () => {
    const { adapter, sent } = fakeClient(sesError('AlreadyExistsException'), { Tenant: { TenantName: 'Stack-Data-a7', TenantArn: arn, SendingStatus: 'DISABLED' } });
    expect(await adapter.createTenant('Stack-Data-a7')).toEqual({ name: 'Stack-Data-a7', arn, status: 'paused' });
    expect(sent.map((call) => call.command)).toEqual([CreateTenantCommand.name, GetTenantCommand.name]);
  });

  test('GetTenant: DISABLED is paused, ENABLED and REINSTATED send, a missing tenant is undefined', async () => {
    const { adapter, sent } = fakeClient(
      { Tenant: { TenantArn: arn, SendingStatus: 'DISABLED' } },
      { Tenant: { TenantArn: arn, SendingStatus: 'REINSTATED' } },
      { Tenant: { TenantArn: arn, SendingStatus: 'ENABLED' } },
      sesError('NotFoundException'),
    );
    expect((await adapter.tenant('t'))?.status).toBe('paused');
    expect((await adapter.tenant('t'))?.status).toBe('enabled');
    expect((await adapter.tenant('t'))?.status).toBe('enabled');
    expect(await adapter.tenant('t')).toBeUndefined();
    expect(sent[0]).toEqual({ command: GetTenantCommand.name, input: { TenantName: 't' } });
  });

  test('associates a resource; one associated already is fine; one SES does not have is false', async () => {
    const tenant = { name: 'Stack-Data-a7', arn, status: 'enabled' as const };
    const identity = 'arn:aws:ses:eu-west-1:123456789012:identity/acme.com';
    const { adapter, sent } = fakeClient({}, sesError('AlreadyExistsException'), sesError('NotFoundException'));
    expect(await adapter.associate(tenant, identity)).toBe(true);
    expect(await adapter.associate(tenant, identity)).toBe(true);
    expect(await adapter.associate(tenant, identity)).toBe(false);
    expect(sent[0]).toEqual({ command: CreateTenantResourceAssociationCommand.name, input: { TenantName: 'Stack-Data-a7', ResourceArn: identity } });
  });

  test('other errors reach the caller unchanged', async () => {
    const throttled = sesError('TooManyRequestsException');
    const { adapter } = fakeClient(throttled);
    await expect(adapter.createTenant('t')).rejects.toBe(throttled);
  });

  test("SES's tenant quota reached (LimitExceededException on CreateTenant) is a TenantLimitError naming the tenant", async () => {
    const refused = sesError('LimitExceededException');
    const { adapter } = fakeClient(refused);
    const error = await adapter.createTenant('Stack-Data-a7').catch((caught: unknown) => caught);
    expect(error).toEqual(new TenantLimitError('Stack-Data-a7'));
    expect((error as Error).cause).toBe(refused);
  });
});

describe('a region without tenant management', () => {
  test.each(['UnknownOperationException', 'UnsupportedOperationException'])('%s from CreateTenant is TenantsUnavailableError naming the region', async (name) => {
    const { adapter } = fakeClient(sesError(name));
    const attempt = adapter.createTenant('t');
    await expect(attempt).rejects.toBeInstanceOf(TenantsUnavailableError);
    await expect(attempt).rejects.toThrow('SES tenant management is not available in eu-west-1');
  });

  test('is said once per container, and mail then goes without a tenant', async () => {
    const warn = jest.spyOn(log, 'warn').mockImplementation(() => undefined);
    try {
      const { adapter } = fakeClient(sesError('UnknownOperationException'), sesError('UnknownOperationException'));
      const tenant = { name: 'Stack-Data-a7', arn, status: 'enabled' as const, checked_at: '2026-01-01T00:00:00.000Z', identities: ['acme.com'] };
      expect(tenantNameForMail(tenant, 'news@acme.com')).toBe('Stack-Data-a7');
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await adapter.tenant('t').catch((caught: unknown) => caught);
        expect(noteTenantsUnavailable(error)).toBe(true);
      }
      expect(warn.mock.calls).toEqual([['SES tenant management is not available in eu-west-1; sending without tenants']]);
      expect(tenantsOffered()).toBe(false);
      expect(tenantNameForMail(tenant, 'news@acme.com')).toBeUndefined();
      expect(noteTenantsUnavailable(sesError('TooManyRequestsException'))).toBe(false);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('which mail goes under the tenant', () => {
  const tenant = { name: 'T-a1', arn, status: 'enabled' as const, checked_at: '2026-01-01T00:00:00.000Z', identities: ['acme.com', 'solo@free.example'] };
  test('an address on an associated domain, or an associated address, case aside', () => {
    expect(tenantNameForMail(tenant, 'News@ACME.com')).toBe('T-a1');
    expect(tenantNameForMail(tenant, 'solo@free.example')).toBe('T-a1');
  });
  test('an address on a subdomain of an associated domain (SES sends from every subdomain of a verified domain)', () => {
    expect(tenantNameForMail(tenant, 'news@eu.Mail.acme.com')).toBe('T-a1');
    expect(tenantNameForMail(tenant, 'news@xacme.com')).toBeUndefined();
    expect(tenantNameForMail(tenant, 'news@acme.com.evil.example')).toBeUndefined();
  });
  test('any other address goes without (SES would refuse it under the tenant); no tenant, none', () => {
    expect(tenantNameForMail(tenant, 'other@free.example')).toBeUndefined();
    expect(tenantNameForMail(undefined, 'news@acme.com')).toBeUndefined();
  });
});
