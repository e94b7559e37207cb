// The local SES sink's part of tenant management: a SendEmail naming a tenant that is paused (its
// stand-in item in the table, shared/tenants/local-tenants.ts, set by `npm run tenants:status`) is
// refused as SES refuses it, with SendingPausedException, and nothing is stored. Mail without a
// tenant, or under an enabled one, goes on to the package's own handler.
import { localTenants } from '../../shared/tenants/local-tenants';

/** What the handler uses of Express's request and response (the package brings no types for them). */
interface SinkRequest {
  body?: unknown;
}
interface SinkResponse {
  status(code: number): SinkResponse;
  header(name: string, value: string): SinkResponse;
  send(body: unknown): unknown;
}
type SendEmailHandler = (request: SinkRequest, response: SinkResponse) => unknown;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sendEmailModule = require('aws-ses-v2-local/dist/v2/sendEmail') as { default: SendEmailHandler };

let installed = false;

/** Wrap the package's SES v2 SendEmail handler; its app reads the handler when the server starts. */
export function refusePausedTenants(log: (line: string) => void): void {
  if (installed) return;
  installed = true;
  const original = sendEmailModule.default;
  sendEmailModule.default = async (request, response) => {
    const tenantName = (request.body as { TenantName?: unknown } | undefined)?.TenantName;
    if (typeof tenantName === 'string' && tenantName !== '') {
      let paused = false;
      try {
        paused = (await localTenants.tenant(tenantName))?.status === 'paused';
      } catch (error) {
        // No table to ask (a sink started alone): the tenant cannot be paused here.
        log(`ses sink: tenant ${tenantName} could not be read (${(error as Error).message}); mail accepted`);
      }
      if (paused) {
        response
          .status(400)
          .header('x-amzn-errortype', 'SendingPausedException')
          .send({ message: `Sending is paused for tenant ${tenantName}.` });
        return;
      }
    }
    return original(request, response);
  };
}
