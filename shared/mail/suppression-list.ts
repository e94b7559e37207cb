// The mail system's own suppression list port. Deployed, SES keeps an account-level suppression list
// besides ours: an address a customer takes off our list would still be dropped by SES (and reported
// back as an OnAccountSuppressionList bounce, putting it on our list again), so it is cleared there
// too. Locally the SES sink keeps no such list, so there is nothing to clear. The adapter is chosen
// here from the runtime; the SES one takes an injectable client so it is tested on canned answers.
import { DeleteSuppressedDestinationCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { standIn } from '../aws-call-watch';
import { awsClient } from '../aws-clients';
import { config } from '../config';

export interface SuppressionListAdapter {
  /** Take the address off the mail system's suppression list; one not on it is not an error. */
  clearSuppressedDestination(email: string): Promise<void>;
}

/** What the adapter needs of a client: SESv2Client, or a fake in tests. */
export interface SesSuppressionClient {
  send(command: object): Promise<unknown>;
}

// A control-plane call that is safe to repeat (a delete), so unlike sending (shared/mail/mailer.ts,
// one attempt only) the SDK's own retries are welcome; hence a client of its own.
const suppressionClient = awsClient(({ region }) => new SESv2Client({ region }));

export function sesSuppressionListAdapter(client: () => SesSuppressionClient): SuppressionListAdapter {
  return {
    async clearSuppressedDestination(email) {
      try {
        await client().send(new DeleteSuppressedDestinationCommand({ EmailAddress: email }));
      } catch (error) {
        // Not on SES's list (never bounced there, or already cleared): the wanted state already.
        if ((error as { name?: string } | null)?.name !== 'NotFoundException') throw error;
      }
    },
  };
}

/** Locally the SES sink suppresses nothing, so there is no list to clear. */
const noSuppressionList: SuppressionListAdapter = {
  async clearSuppressedDestination() {},
};

/** SES's DeleteSuppressedDestination, which the deployed adapter calls, for a test that watches it. */
function reportedSuppressionList(adapter: SuppressionListAdapter): SuppressionListAdapter {
  return {
    clearSuppressedDestination: (email) =>
      standIn({ service: 'sesv2', operation: 'DeleteSuppressedDestination', input: { EmailAddress: email } }, () => adapter.clearSuppressedDestination(email)),
  };
}

// A Lambda bundle keeps only the no-op (see shared/aws-call-watch.ts).
export const localSuppressionList: SuppressionListAdapter = process.env.LAMBDA_BUNDLE !== 'true' ? /* @__PURE__ */ reportedSuppressionList(noSuppressionList) : noSuppressionList;

let adapter: SuppressionListAdapter | undefined;

/** The adapter on the container's SES client. */
export function sesSuppressionList(): SuppressionListAdapter {
  adapter ??= sesSuppressionListAdapter(suppressionClient);
  return adapter;
}

/** The adapter for this runtime. */
export function suppressionList(): SuppressionListAdapter {
  return config().runtime === 'local' ? localSuppressionList : sesSuppressionList();
}
