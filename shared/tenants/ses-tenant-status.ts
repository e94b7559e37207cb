// The SES adapter's read side: GetTenant only, so the delivery function can re-check a paused tenant
// without bundling the calls that create and associate (shared/tenants/ses-tenants.ts).
import { GetTenantCommand, SESv2Client, type GetTenantCommandOutput } from '@aws-sdk/client-sesv2';
import { awsClient } from '../aws-clients';
import { config } from '../config';
import { pacedCalls } from '../rate-limits/ses-control';
import { statusOf, TenantsUnavailableError, type Tenant, type TenantStatusReader } from './tenants';

/** What the adapter needs of a client: SESv2Client, or a fake in tests. */
export interface SesTenantClient {
  send(command: object): Promise<unknown>;
}

let clientOfConfig: (() => SESv2Client) | undefined;

/**
 * The container's client for tenant calls, built on first use: a function that merely bundles this
 * module (through an import it never calls) then carries no SES client. Tenant calls are rare
 * control-plane calls, so unlike sending (shared/mail/mailer.ts) the SDK's own retries are welcome.
 */
export function tenantClient(): SESv2Client {
  clientOfConfig ??= awsClient(({ region }) => new SESv2Client({ region }));
  return clientOfConfig();
}

export const errorName = (error: unknown): string | undefined => (error as { name?: string } | null)?.name;

// What SES answers where tenant management is not offered: the operation is unknown to the endpoint
// (an older regional endpoint), or refused as unsupported in the region.
const unavailableNames = new Set(['UnknownOperationException', 'UnsupportedOperationException', 'UnsupportedOperation', 'InvalidAction']);

/** The error SES gives for an operation its region does not offer, as TenantsUnavailableError; others unchanged. */
export function unavailableOrSame(error: unknown): unknown {
  const name = errorName(error);
  const message = (error as { message?: string } | null)?.message ?? '';
  if ((name && unavailableNames.has(name)) || (name === 'BadRequestException' && /not (supported|available)/i.test(message))) {
    return new TenantsUnavailableError(config().region, { cause: error });
  }
  return error;
}

export function sesTenantStatusReader(client: () => SesTenantClient): TenantStatusReader {
  return {
    async tenant(name) {
      let answer: GetTenantCommandOutput;
      try {
        answer = (await client().send(new GetTenantCommand({ TenantName: name }))) as GetTenantCommandOutput;
      } catch (error) {
        if (errorName(error) === 'NotFoundException') return undefined;
        throw unavailableOrSame(error);
      }
      const found = answer.Tenant;
      if (!found?.TenantArn) return undefined;
      return { name, arn: found.TenantArn, status: statusOf(found.SendingStatus) } satisfies Tenant;
    },
  };
}

let reader: TenantStatusReader | undefined;

/** The read side on the container's SES client, each call held to the stage's control-plane pace. */
export function sesTenantStatus(): TenantStatusReader {
  reader ??= sesTenantStatusReader(pacedCalls(tenantClient));
  return reader;
}
