// The mail system's suppression-list port: the SES adapter on a fake SESv2 client (the command it
// sends, a missing entry taken as cleared, any other refusal passed on) and the adapter each runtime gets.
import { DeleteSuppressedDestinationCommand } from '@aws-sdk/client-sesv2';
import { resetConfig } from '../../shared/config';
import {
  localSuppressionList,
  sesSuppressionList,
  sesSuppressionListAdapter,
  suppressionList,
  type SesSuppressionClient,
} from '../../shared/mail/suppression-list';

/** An SDK-shaped service error, as the client throws it. */
function sesError(name: string): Error {
  return Object.assign(new Error(`${name} from SES`), { name, $metadata: {} });
}

/** A client that records each command and answers with the given outcome. */
function fakeClient(outcome: Record<string, unknown> | Error) {
  const sent: { command: string; input: unknown }[] = [];
  const client: SesSuppressionClient = {
    async send(command: object) {
      sent.push({ command: command.constructor.name, input: (command as { input: unknown }).input });
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
  return { adapter: sesSuppressionListAdapter(() => client), sent };
}

describe('SES suppression-list adapter', () => {
  test('clears the address with DeleteSuppressedDestination', async () => {
    const { adapter, sent } = fakeClient({ $metadata: {} });
    await expect(adapter.clearSuppressedDestination('Back@Example.com')).resolves.toBeUndefined();
    expect(sent).toEqual([{ command: DeleteSuppressedDestinationCommand.name, input: { EmailAddress: 'Back@Example.com' } }]);
  });

  test('takes an address SES does not have on its list as cleared', async () => {
    const { adapter, sent } = fakeClient(sesError('NotFoundException'));
    await expect(adapter.clearSuppressedDestination('never@example.com')).resolves.toBeUndefined();
    expect(sent).toHaveLength(1);
  });

  test.each(['TooManyRequestsException', 'BadRequestException', 'AccessDeniedException'])('passes on %s', async (name) => {
    const { adapter } = fakeClient(sesError(name));
    await expect(adapter.clearSuppressedDestination('back@example.com')).rejects.toMatchObject({ name });
  });
});

describe('suppression-list port', () => {
  const saved = { APP_RUNTIME: process.env.APP_RUNTIME, TABLE_NAME: process.env.TABLE_NAME };

  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfig();
  });

  test.each([
    ['aws', () => sesSuppressionList()],
    ['local', () => localSuppressionList],
  ])('picks the adapter of the %s runtime', (runtime, expected) => {
    Object.assign(process.env, { APP_RUNTIME: runtime, TABLE_NAME: 'suppression-list-port-test' });
    resetConfig();
    expect(suppressionList()).toBe(expected());
  });

  test('the local adapter has nothing to clear (the SES sink suppresses nothing)', async () => {
    await expect(localSuppressionList.clearSuppressedDestination('back@example.com')).resolves.toBeUndefined();
  });
});
