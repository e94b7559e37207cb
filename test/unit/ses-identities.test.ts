// The SES adapter of the sending-identity port on a fake SESv2 client: the commands it sends, and how it
// reads SES's answers (Easy DKIM tokens to CNAMEs, verification and DKIM status, missing identities).
import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  SendCustomVerificationEmailCommand,
} from '@aws-sdk/client-sesv2';
import { resetConfig } from '../../shared/config';
import { IdentityTakenError } from '../../shared/identities/identities';
import { identities } from '../../shared/identities/identity-port';
import { localIdentities } from '../../shared/identities/local-identities';
import { sesIdentities, sesIdentityAdapter, type SesIdentityClient } from '../../shared/identities/ses-identities';

type Answer = Record<string, unknown> | Error;

/** An SDK-shaped service error, as the client throws it. */
function sesError(name: string): Error {
  return Object.assign(new Error(`${name} from SES`), { name, $metadata: {} });
}

/** A client that records each command and answers from a script, in order. */
function fakeClient(...answers: Answer[]) {
  const sent: { command: string; input: unknown }[] = [];
  const client: SesIdentityClient = {
    async send(command: object) {
      sent.push({ command: command.constructor.name, input: (command as { input: unknown }).input });
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected ${command.constructor.name}`);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { adapter: sesIdentityAdapter(() => client), sent };
}

const tokens = ['tokenaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'tokenbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'tokenccccccccccccccccccccccccccc'];
const cnames = tokens.map((token) => ({ name: `${token}._domainkey.example.org`, type: 'CNAME', value: `${token}.dkim.amazonses.com` }));

describe('SES identity adapter', () => {
  test('registers a domain with CreateEmailIdentity and answers Easy DKIM as three CNAMEs, pending', async () => {
    const { adapter, sent } = fakeClient({ IdentityType: 'DOMAIN', VerifiedForSendingStatus: false, DkimAttributes: { Status: 'PENDING', Tokens: tokens } });
    expect(await adapter.registerDomain('example.org')).toEqual({ status: 'pending', dkimRecords: cnames });
    expect(sent).toEqual([{ command: CreateEmailIdentityCommand.name, input: { EmailIdentity: 'example.org' } }]);
  });

  test('refuses a domain SES already has, and never adopts it (it may be the service\'s own)', async () => {
    const { adapter, sent } = fakeClient(sesError('AlreadyExistsException'));
    await expect(adapter.registerDomain('example.org')).rejects.toEqual(new IdentityTakenError('example.org'));
    expect(sent.map((call) => call.command)).toEqual([CreateEmailIdentityCommand.name]);
  });

  test('passes on any other refusal of CreateEmailIdentity', async () => {
    const { adapter } = fakeClient(sesError('LimitExceededException'));
    await expect(adapter.registerDomain('example.org')).rejects.toMatchObject({ name: 'LimitExceededException' });
  });

  test.each([
    ['SUCCESS', true, 'verified'],
    ['PENDING', false, 'pending'],
    ['NOT_STARTED', false, 'pending'],
    ['TEMPORARY_FAILURE', false, 'pending'],
    ['FAILED', false, 'failed'],
  ])('reads GetEmailIdentity with DKIM status %s (verified for sending: %s) as %s', async (dkimStatus, verified, status) => {
    const { adapter, sent } = fakeClient({ VerifiedForSendingStatus: verified, DkimAttributes: { Status: dkimStatus, Tokens: tokens } });
    expect(await adapter.domainIdentity('example.org')).toEqual({ status, dkimRecords: cnames });
    expect(sent).toEqual([{ command: GetEmailIdentityCommand.name, input: { EmailIdentity: 'example.org' } }]);
  });

  test('answers no identity when SES has none', async () => {
    const { adapter } = fakeClient(sesError('NotFoundException'));
    expect(await adapter.domainIdentity('example.org')).toBeUndefined();
  });

  test('deletes with DeleteEmailIdentity, quietly when SES has no such identity', async () => {
    const { adapter, sent } = fakeClient({}, sesError('NotFoundException'));
    await adapter.deleteDomain('example.org');
    await adapter.deleteDomain('example.org');
    expect(sent).toEqual([
      { command: DeleteEmailIdentityCommand.name, input: { EmailIdentity: 'example.org' } },
      { command: DeleteEmailIdentityCommand.name, input: { EmailIdentity: 'example.org' } },
    ]);
    const failing = fakeClient(sesError('TooManyRequestsException'));
    await expect(failing.adapter.deleteDomain('example.org')).rejects.toMatchObject({ name: 'TooManyRequestsException' });
  });

  test('registers an address through the custom verification mail of our template', async () => {
    const { adapter, sent } = fakeClient({ MessageId: 'message-1' });
    await adapter.registerAddress('news@example.org', { templateName: 'email-campaign-prod-sender-verification' });
    expect(sent).toEqual([
      { command: SendCustomVerificationEmailCommand.name, input: { EmailAddress: 'news@example.org', TemplateName: 'email-campaign-prod-sender-verification' } },
    ]);
  });

  test('an address is verified by its own identity, or else by its verified domain', async () => {
    const own = fakeClient({ VerifiedForSendingStatus: true });
    expect(await own.adapter.addressVerified('news@example.org')).toBe(true);
    expect(own.sent.map((call) => call.input)).toEqual([{ EmailIdentity: 'news@example.org' }]);

    const byDomain = fakeClient(sesError('NotFoundException'), { VerifiedForSendingStatus: true });
    expect(await byDomain.adapter.addressVerified('news@example.org')).toBe(true);
    expect(byDomain.sent.map((call) => call.input)).toEqual([{ EmailIdentity: 'news@example.org' }, { EmailIdentity: 'example.org' }]);

    const neither = fakeClient({ VerifiedForSendingStatus: false }, { VerifiedForSendingStatus: false });
    expect(await neither.adapter.addressVerified('news@example.org')).toBe(false);
  });
});

describe('sending-identity port', () => {
  const saved = { APP_RUNTIME: process.env.APP_RUNTIME, TABLE_NAME: process.env.TABLE_NAME };

  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfig();
  });

  test.each([
    ['aws', () => sesIdentities()],
    ['local', () => localIdentities],
  ])('picks the adapter of the %s runtime', (runtime, expected) => {
    Object.assign(process.env, { APP_RUNTIME: runtime, TABLE_NAME: 'identities-port-test' });
    resetConfig();
    expect(identities()).toBe(expected());
  });
});
