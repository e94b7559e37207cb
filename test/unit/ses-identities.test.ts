// The SES adapter of the sending-identity port on a fake SESv2 client: the commands it sends, and how it
// reads SES's answers (Easy DKIM tokens to CNAMEs, verification and DKIM status, missing identities).
import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  SendCustomVerificationEmailCommand,
} from '@aws-sdk/client-sesv2';
import { resetConfig } from '../../shared/config';
import { restoreRuntimeAfterEach, scriptedSesClient, sesError, type SesAnswer } from '../support/fake-ses';
import { IdentityTakenError } from '../../shared/identities/identities';
import { identities } from '../../shared/identities/identity-port';
import { localIdentities } from '../../shared/identities/local-identities';
import { sesIdentities, sesIdentityAdapter } from '../../shared/identities/ses-identities';

/** The adapter on a scripted fake client, and the commands it sent. */
function fakeClient(...answers: SesAnswer[]) {
  const { client, sent } = scriptedSesClient(...answers);
  return { adapter: sesIdentityAdapter(() => client), sent };
}

const tokens = ['tokenaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'tokenbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'tokenccccccccccccccccccccccccccc'];
const cnames = tokens.map((token) => ({ name: `${token}._domainkey.example.org`, type: 'CNAME', value: `${token}.dkim.amazonses.com` }));

describe('SES identity adapter', () => {
  test('registers a domain with CreateEmailIdentity and answers Easy DKIM as three CNAMEs, pending', async () => {
    const { adapter, sent } = fakeClient({ IdentityType: 'DOMAIN', VerifiedForSendingStatus: false, DkimAttributes: { Status: 'PENDING', Tokens: tokens } });
    expect(await adapter.registerDomain('example.org')).toEqual({ status: 'pending', verifiedForSending: false, dkimRecords: cnames });
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
    // A subdomain of a verified domain: SES sends from it by inheritance, but its own DNS proved nothing.
    ['PENDING', true, 'pending'],
    ['NOT_STARTED', true, 'pending'],
    ['FAILED', true, 'failed'],
  ])('reads GetEmailIdentity with DKIM status %s (verified for sending: %s) as %s', async (dkimStatus, verified, status) => {
    const { adapter, sent } = fakeClient({ VerifiedForSendingStatus: verified, DkimAttributes: { Status: dkimStatus, Tokens: tokens } });
    expect(await adapter.domainIdentity('example.org')).toEqual({ status, verifiedForSending: verified, dkimRecords: cnames });
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
    // SES mails it: the caller sends no mail of its own.
    expect(await adapter.registerAddress('news@example.org', { templateName: 'email-campaign-prod-sender-verification' })).toBe('mailed');
    expect(sent).toEqual([
      { command: SendCustomVerificationEmailCommand.name, input: { EmailAddress: 'news@example.org', TemplateName: 'email-campaign-prod-sender-verification' } },
    ]);
  });

  test('passes on a refusal of SendCustomVerificationEmail (an unknown template, throttling)', async () => {
    const { adapter } = fakeClient(sesError('NotFoundException'));
    await expect(adapter.registerAddress('news@example.org', { templateName: 'missing' })).rejects.toMatchObject({ name: 'NotFoundException' });
  });

  test("reads an address's own identity as SES reports it, and none when SES has none", async () => {
    const own = fakeClient({ IdentityType: 'EMAIL_ADDRESS', VerifiedForSendingStatus: true });
    expect(await own.adapter.addressIdentity('news@example.org')).toEqual({ verifiedForSending: true });
    expect(own.sent).toEqual([{ command: GetEmailIdentityCommand.name, input: { EmailIdentity: 'news@example.org' } }]);

    const pending = fakeClient({ IdentityType: 'EMAIL_ADDRESS', VerifiedForSendingStatus: false });
    expect(await pending.adapter.addressIdentity('news@example.org')).toEqual({ verifiedForSending: false });
    expect(pending.sent).toHaveLength(1);

    const none = fakeClient(sesError('NotFoundException'));
    expect(await none.adapter.addressIdentity('news@example.org')).toBeUndefined();
    expect(none.sent).toHaveLength(1);

    const failing = fakeClient(sesError('TooManyRequestsException'));
    await expect(failing.adapter.addressIdentity('news@example.org')).rejects.toMatchObject({ name: 'TooManyRequestsException' });
  });

  test('deletes an address identity with DeleteEmailIdentity, quietly when SES has none', async () => {
    const { adapter, sent } = fakeClient({}, sesError('NotFoundException'));
    await adapter.deleteAddress('news@example.org');
    await adapter.deleteAddress('news@example.org');
    expect(sent).toEqual([
      { command: DeleteEmailIdentityCommand.name, input: { EmailIdentity: 'news@example.org' } },
      { command: DeleteEmailIdentityCommand.name, input: { EmailIdentity: 'news@example.org' } },
    ]);
  });
});

describe('sending-identity port', () => {
  restoreRuntimeAfterEach(resetConfig);

  test.each([
    ['aws', () => sesIdentities()],
    ['local', () => localIdentities],
  ])('picks the adapter of the %s runtime', (runtime, expected) => {
    Object.assign(process.env, { APP_RUNTIME: runtime, TABLE_NAME: 'identities-port-test' });
    resetConfig();
    expect(identities()).toBe(expected());
  });
});
