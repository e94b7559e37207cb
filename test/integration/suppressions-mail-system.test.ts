// Deleting a suppression also clears the mail system's own suppression list (deployed, SES's
// account-level list): the service on DynamoDB Local with an adapter that records or refuses. SES is
// cleared first with the stored address, an address the account never had is not sent to SES, and an
// SES failure leaves the entry in place so the delete can be retried. (The handler's answers, and that
// locally nothing else changes, are in suppressions.test.ts.)
import type { SuppressionListAdapter } from '../../shared/mail/suppression-list';
import { RecordNotFound } from '../../shared/table/errors';
import { addBouncedAddress, bouncedAmong } from '../../shared/suppressions/bounces';
import { removeBouncedAddress } from '../../shared/feedback/suppression-removal';
import { newAccount } from '../support/accounts';

/** An adapter that records each address, and fails while `failure` is set. */
function recordingAdapter() {
  const cleared: string[] = [];
  const state: { failure?: Error } = {};
  const adapter: SuppressionListAdapter = {
    async clearSuppressedDestination(email) {
      if (state.failure) throw state.failure;
      cleared.push(email);
    },
  };
  return { adapter, cleared, state };
}

describe('removing a suppression and the mail system\'s suppression list', () => {
  it('clears the address as SES reported it, whatever case the request uses, then deletes the entry', async () => {
    const keys = await newAccount();
    const { adapter, cleared } = recordingAdapter();
    await addBouncedAddress(keys.account_id, 'Back@Example.com', 'bounce', 'General');
    expect(await removeBouncedAddress(keys.account_id, 'back@EXAMPLE.com', adapter)).toMatchObject({ email_address: 'Back@Example.com', kind: 'bounce' });
    expect(cleared).toEqual(['Back@Example.com']);
    expect(await bouncedAmong(keys.account_id, ['back@example.com'])).toEqual(new Set());
  });

  it('never clears an address the account does not have on its list (one SES list serves every account)', async () => {
    const keys = await newAccount();
    const stranger = await newAccount();
    const { adapter, cleared } = recordingAdapter();
    await addBouncedAddress(stranger.account_id, 'theirs@example.com', 'bounce', 'General');
    await expect(removeBouncedAddress(keys.account_id, 'theirs@example.com', adapter)).rejects.toBeInstanceOf(RecordNotFound);
    expect(cleared).toEqual([]);
    expect(await bouncedAmong(stranger.account_id, ['theirs@example.com'])).toEqual(new Set(['theirs@example.com']));
  });

  it('keeps the entry when SES fails, so a retry then deletes it', async () => {
    const keys = await newAccount();
    const { adapter, cleared, state } = recordingAdapter();
    await addBouncedAddress(keys.account_id, 'retry@example.com', 'complaint', 'abuse');
    state.failure = Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' });
    await expect(removeBouncedAddress(keys.account_id, 'retry@example.com', adapter)).rejects.toMatchObject({ name: 'TooManyRequestsException' });
    expect(await bouncedAmong(keys.account_id, ['retry@example.com'])).toEqual(new Set(['retry@example.com']));

    delete state.failure;
    await removeBouncedAddress(keys.account_id, 'retry@example.com', adapter);
    expect(cleared).toEqual(['retry@example.com']);
    expect(await bouncedAmong(keys.account_id, ['retry@example.com'])).toEqual(new Set());
  });
});
