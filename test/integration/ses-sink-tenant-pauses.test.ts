// A sink started with `tenantPauses: false` (the send benchmarks' sink process, which has no table to
// read tenants from) takes a paused tenant's mail without reading the tenant, as SES's own check is
// not the service's work; a sink that plays pauses refuses it. One file of its own, the sink with no
// pauses started first: the first sink that plays them installs the check for the whole process.
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { startSesSink, type SesSink } from '../../infra/local/ses-sink';
import { localTenants, setLocalTenantStatus } from '../../shared/tenants/local-tenants';

const tenantName = 'sink-option-tenant';
const started: SesSink[] = [];

function mailUnderTenant(endpoint: string): Promise<unknown> {
  const client = new SESv2Client({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  return client.send(
    new SendEmailCommand({
      FromEmailAddress: 'news@acme.example',
      Destination: { ToAddresses: ['someone@example.com'] },
      Content: { Simple: { Subject: { Data: 'Hi' }, Body: { Text: { Data: 'Hi' } } } },
      TenantName: tenantName,
    }),
  );
}

beforeAll(async () => {
  await localTenants.createTenant(tenantName);
  await setLocalTenantStatus(tenantName, 'paused');
});

afterAll(async () => {
  await Promise.all(started.map((sink) => sink.stop()));
});

test('a sink without tenant pauses takes a paused tenant\'s mail and logs nothing; one with them refuses it', async () => {
  // Prepare
  const lines: string[] = [];
  const withoutPauses = await startSesSink({ port: 0, events: false, tenantPauses: false, log: (line) => lines.push(line) });
  started.push(withoutPauses);

  // Act + Assess: taken, with no line about the tenant.
  await expect(mailUnderTenant(withoutPauses.endpoint)).resolves.toMatchObject({ MessageId: expect.any(String) });
  expect(lines.filter((line) => line.includes('tenant'))).toEqual([]);

  // A sink that plays pauses refuses the same mail as SES does.
  const withPauses = await startSesSink({ port: 0, events: false, log: () => undefined });
  started.push(withPauses);
  await expect(mailUnderTenant(withPauses.endpoint)).rejects.toMatchObject({ name: 'SendingPausedException' });
});
