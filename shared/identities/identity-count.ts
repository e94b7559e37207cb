// How many SES identities (addresses and domains) the AWS account has in the region, against SES's
// quota of 10,000 per region: made by this stage, by other stages in the account, or by hand alike.
// Deployed, ListEmailIdentities page by page, each page held to the control-plane pace; locally, the
// identity stand-in's items. Apart from the identity port, so only the periodic check carries it.
import { ListEmailIdentitiesCommand, SESv2Client, type ListEmailIdentitiesCommandOutput } from '@aws-sdk/client-sesv2';
import { standIn } from '../aws-call-watch';
import { awsClient } from '../aws-clients';
import { config } from '../config';
import { pacedCalls, type CommandClient } from '../rate-limits/ses-control';
import { queryAll } from '../table/records';
import { localIdentityKey } from './keys';

/** SES's quota of identities per AWS account and region. */
export const sesIdentityQuota = 10_000;

/** The share of the quota at which the periodic check warns and the stack's alarm fires. */
export const identityQuotaWarningShare = 0.8;

/** The largest page ListEmailIdentities answers: ten pages count a full quota. */
const pageSize = 1000;

/** Count the identities with ListEmailIdentities, one page of up to 1,000 per call. */
export async function countSesIdentities(client: () => CommandClient): Promise<number> {
  let count = 0;
  let token: string | undefined;
  do {
    const page = (await client().send(new ListEmailIdentitiesCommand({ PageSize: pageSize, ...(token ? { NextToken: token } : {}) }))) as ListEmailIdentitiesCommandOutput;
    count += page.EmailIdentities?.length ?? 0;
    token = page.NextToken;
  } while (token);
  return count;
}

const listClient = pacedCalls(awsClient(({ region }) => new SESv2Client({ region })));

/** The local stand-in's identities (shared/identities/local-identities.ts), reported as the SES call. */
function countLocalIdentities(): Promise<number> {
  const count = async () => (await queryAll({ partition: localIdentityKey('').pk })).length;
  // A Lambda bundle reports nothing (see shared/aws-call-watch.ts).
  return process.env.LAMBDA_BUNDLE !== 'true' ? standIn({ service: 'sesv2', operation: 'ListEmailIdentities', input: { PageSize: pageSize } }, count) : count();
}

/** The identities in use in the region, for this runtime. */
export function identitiesInUse(): Promise<number> {
  return config().runtime === 'local' ? countLocalIdentities() : countSesIdentities(listClient);
}
