// The SES adapter of the sending-identity port (API v2): domains with Easy DKIM, addresses through
// SES's custom verification email. The client is injectable so the adapter is tested on canned answers.
import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  SendCustomVerificationEmailCommand,
  SESv2Client,
  type GetEmailIdentityCommandOutput,
} from '@aws-sdk/client-sesv2';
import { awsClient } from '../aws-clients';
import { pacedCalls } from '../rate-limits/ses-control';
import { dkimRecordsOf, domainStatusOf, IdentityTakenError, type DomainIdentity, type IdentityAdapter } from './identities';

/** What the adapter needs of a client: SESv2Client, or a fake in tests. */
export interface SesIdentityClient {
  send(command: object): Promise<unknown>;
}

// Identity calls are rare control-plane calls, so unlike sending (shared/mail/mailer.ts) the SDK's
// own retries are welcome.
const identityClient = awsClient(({ region }) => new SESv2Client({ region }));

const errorName = (error: unknown): string | undefined => (error as { name?: string } | null)?.name;

/**
 * A domain as SES answers it. Its status comes from its own DKIM status only: VerifiedForSendingStatus
 * is also true for a subdomain of a verified domain (inheritance), which proves nothing of the subdomain.
 */
function domainOf(domain: string, answer: Pick<GetEmailIdentityCommandOutput, 'VerifiedForSendingStatus' | 'DkimAttributes'>): DomainIdentity {
  return {
    status: domainStatusOf(answer.DkimAttributes?.Status),
    verifiedForSending: answer.VerifiedForSendingStatus === true,
    dkimRecords: dkimRecordsOf(domain, answer.DkimAttributes?.Tokens ?? []),
  };
}

export function sesIdentityAdapter(client: () => SesIdentityClient): IdentityAdapter {
  async function getIdentity(identity: string): Promise<GetEmailIdentityCommandOutput | undefined> {
    try {
      return (await client().send(new GetEmailIdentityCommand({ EmailIdentity: identity }))) as GetEmailIdentityCommandOutput;
    } catch (error) {
      if (errorName(error) === 'NotFoundException') return undefined;
      throw error;
    }
  }

  async function domainIdentity(domain: string): Promise<DomainIdentity | undefined> {
    const answer = await getIdentity(domain);
    return answer ? domainOf(domain, answer) : undefined;
  }

  async function deleteIdentity(identity: string): Promise<void> {
    try {
      await client().send(new DeleteEmailIdentityCommand({ EmailIdentity: identity }));
    } catch (error) {
      if (errorName(error) !== 'NotFoundException') throw error;
    }
  }

  return {
    async registerDomain(domain) {
      try {
        const answer = (await client().send(new CreateEmailIdentityCommand({ EmailIdentity: domain }))) as {
          VerifiedForSendingStatus?: boolean;
          DkimAttributes?: GetEmailIdentityCommandOutput['DkimAttributes'];
        };
        return domainOf(domain, answer);
      } catch (error) {
        if (errorName(error) === 'AlreadyExistsException') throw new IdentityTakenError(domain);
        throw error;
      }
    },
    domainIdentity,
    deleteDomain: deleteIdentity,
    async registerAddress(address, mail) {
      // SendCustomVerificationEmail creates the address identity and mails our branded template,
      // whose success and failure pages are set on the template itself.
      // A repeat (a resend) mails again; SES keeps one identity per address.
      await client().send(new SendCustomVerificationEmailCommand({ EmailAddress: address, TemplateName: mail.templateName }));
      return 'mailed';
    },
    async addressIdentity(address) {
      const answer = await getIdentity(address);
      return answer ? { verifiedForSending: answer.VerifiedForSendingStatus === true } : undefined;
    },
    deleteAddress: deleteIdentity,
  };
}

let adapter: IdentityAdapter | undefined;

/** The adapter on the container's SES client, each call held to the stage's control-plane pace. */
export function sesIdentities(): IdentityAdapter {
  adapter ??= sesIdentityAdapter(pacedCalls(identityClient));
  return adapter;
}
