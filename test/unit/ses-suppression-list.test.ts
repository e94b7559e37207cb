// The mail system's suppression-list port: the SES adapter on a fake SESv2 client (the command it
// sends, a missing entry taken as cleared, any other refusal passed on) and the adapter each runtime gets.
import { DeleteSuppressedDestinationCommand } from '@aws-sdk/client-sesv2';
import { resetConfig } from '../../shared/config';
import { restoreRuntimeAfterEach, scriptedSesClient, sesError, type SesAnswer } from '../support/fake-ses';
import {
  localSuppressionList,
  sesSuppressionList,
  sesSuppressionListAdapter,
  suppressionList,
} from '../../shared/mail/suppression-list';

/** The adapter on a scripted fake client, and the commands it sent. */
function fakeClient(...answers: SesAnswer[]) {
  const { client, sent } = scriptedSesClient(...answers);
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
  restoreRuntimeAfterEach(resetConfig);

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
