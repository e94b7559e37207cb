// SES's identity store faked at the SDK client: SESv2Client.send answers the identity commands from a
// small in-memory store (as SES would: a custom verification mail creates a pending address identity,
// a click verifies it, DNS verifies a domain's DKIM, and an identity under a verified domain is
// reported verified for sending by inheritance) and passes every other command (SendEmail to the sink)
// to the real client. For the handlers' deployed flow (APP_RUNTIME=aws) on DynamoDB Local, without AWS.
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { resetConfig } from '../../shared/config';
import { domainAndParents } from '../../shared/identities/identities';
import { sesError } from './fake-ses';

const identityCommands = new Set([
  'CreateEmailIdentityCommand',
  'GetEmailIdentityCommand',
  'DeleteEmailIdentityCommand',
  'SendCustomVerificationEmailCommand',
  'ListEmailIdentitiesCommand',
]);

export interface FakeSesIdentities {
  /** Every identity command sent, in order. */
  calls: { command: string; input: Record<string, unknown> }[];
  /** What SES does when the address's owner clicks the verification link, or DNS proves a domain's DKIM. */
  click(identity: string): void;
  /** An identity made outside the service (in the SES console), verified: an operator's test address, a domain. */
  addOutside(identity: string): void;
  /** Whether SES holds an identity of that name (addresses and domains as SES compares them). */
  has(identity: string): boolean;
  /** How many identities SES holds. */
  count(): number;
  /** Make the next SendCustomVerificationEmail fail as SES would refuse it. */
  failNextMail(name: string): void;
  /** The identity calls of one kind (`SendCustomVerificationEmail`), with their inputs. */
  inputsOf(command: string): Record<string, unknown>[];
  restore(): void;
}

const tokens = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];

/** The domains whose verified identity an identity inherits: an address's domain and its parents, a domain's parents. */
function inheritableFrom(identity: string): string[] {
  const at = identity.lastIndexOf('@');
  return at >= 0 ? domainAndParents(identity.slice(at + 1)) : domainAndParents(identity).slice(1);
}

/** Fake SES's identity calls for every SESv2Client until `restore()`. */
export function fakeSesIdentities(): FakeSesIdentities {
  const identities = new Map<string, { verified: boolean }>();
  const calls: FakeSesIdentities['calls'] = [];
  let failure: string | undefined;
  const name = (identity: unknown) => String(identity).toLowerCase();
  const original = SESv2Client.prototype.send;
  const spy = jest.spyOn(SESv2Client.prototype, 'send').mockImplementation(async function (this: SESv2Client, command: { constructor: { name: string }; input: Record<string, unknown> }) {
    const kind = command.constructor.name;
    if (!identityCommands.has(kind)) return (original as (command: unknown) => Promise<unknown>).call(this, command);
    calls.push({ command: kind, input: command.input });
    if (kind === 'ListEmailIdentitiesCommand') {
      // Pages in name order, of at most PageSize (SES's limit is 1,000), continued by a NextToken.
      const names = [...identities.keys()].sort();
      const start = Number(command.input.NextToken ?? 0);
      const end = start + Math.min(Number(command.input.PageSize ?? 100), 1000);
      const page = names.slice(start, end).map((identity) => ({
        IdentityName: identity,
        IdentityType: identity.includes('@') ? 'EMAIL_ADDRESS' : 'DOMAIN',
        SendingEnabled: true,
        VerificationStatus: identities.get(identity)?.verified ? 'SUCCESS' : 'PENDING',
      }));
      return { EmailIdentities: page, ...(end < names.length ? { NextToken: String(end) } : {}), $metadata: {} };
    }
    if (kind === 'SendCustomVerificationEmailCommand') {
      if (failure) {
        const error = sesError(failure);
        failure = undefined;
        throw error;
      }
      const key = name(command.input.EmailAddress);
      if (!identities.has(key)) identities.set(key, { verified: false });
      return { MessageId: `custom-verification-${calls.length}`, $metadata: {} };
    }
    const key = name(command.input.EmailIdentity);
    if (kind === 'GetEmailIdentityCommand') {
      const identity = identities.get(key);
      if (!identity) throw sesError('NotFoundException');
      const inherited = inheritableFrom(key).some((parent) => identities.get(parent)?.verified === true);
      const verified = identity.verified || inherited;
      if (key.includes('@')) return { IdentityType: 'EMAIL_ADDRESS', VerifiedForSendingStatus: verified, $metadata: {} };
      return { IdentityType: 'DOMAIN', VerifiedForSendingStatus: verified, DkimAttributes: { Status: identity.verified ? 'SUCCESS' : 'PENDING', Tokens: tokens }, $metadata: {} };
    }
    if (kind === 'DeleteEmailIdentityCommand') {
      if (!identities.delete(key)) throw sesError('NotFoundException');
      return { $metadata: {} };
    }
    if (identities.has(key)) throw sesError('AlreadyExistsException');
    identities.set(key, { verified: false });
    const inherited = inheritableFrom(key).some((parent) => identities.get(parent)?.verified === true);
    return { IdentityType: 'DOMAIN', VerifiedForSendingStatus: inherited, DkimAttributes: { Status: 'PENDING', Tokens: tokens }, $metadata: {} };
  } as never);
  return {
    calls,
    click(identity) {
      const found = identities.get(name(identity));
      if (!found) throw new Error(`SES has no identity ${identity} to verify`);
      found.verified = true;
    },
    addOutside(identity) {
      identities.set(name(identity), { verified: true });
    },
    has: (identity) => identities.has(name(identity)),
    count: () => identities.size,
    failNextMail(errorName) {
      failure = errorName;
    },
    inputsOf: (command) => calls.filter((call) => call.command === `${command}Command`).map((call) => call.input),
    restore() {
      spy.mockRestore();
    },
  };
}

/** Run the handlers as deployed (APP_RUNTIME=aws) on DynamoDB Local until `restore()`: the SES adapters are chosen. */
export function deployedRuntime(variables: Record<string, string> = {}): { restore(): void } {
  const names = ['APP_RUNTIME', 'TOKEN_SIGNING_KEY', 'SYSTEM_FROM_EMAIL', 'SENDER_DOMAIN', 'SENDER_VERIFICATION_TEMPLATE', ...Object.keys(variables)];
  const saved = Object.fromEntries(names.map((variable) => [variable, process.env[variable]]));
  Object.assign(process.env, {
    APP_RUNTIME: 'aws',
    TOKEN_SIGNING_KEY: 'deployed-test-signing-key',
    SYSTEM_FROM_EMAIL: 'no-reply@service.example',
    SENDER_DOMAIN: 'service.example',
    SENDER_VERIFICATION_TEMPLATE: 'email-campaign-test-sender-verification',
    ...variables,
  });
  resetConfig();
  return {
    restore() {
      for (const [variable, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[variable];
        else process.env[variable] = value;
      }
      resetConfig();
    },
  };
}
