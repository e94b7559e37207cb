// Address claims: which accounts use an address and which one, if any, holds its SES identity. SES
// keeps one identity per address for the whole AWS account, so once one account has verified
// `hello@acme.com`, SES would tell any other account saving it that it is verified. The claim says
// who may take SES's word (the holder, for whom the service made the identity), whether the service
// made the identity at all (one made outside it is never deleted), and which accounts use the address
// (the identity goes only with the last of them, so no account's senders stop working because another
// account deleted its own).
import { isoTimestamp } from '../time';
import { conditionHeld, deleteItem, getItem, unlessConditionFails, updateItem, type Item } from '../table/records';
import { addressClaimKey } from './keys';

/** The holder of an address nobody holds: no account takes SES's word for it. */
const nobody = 0;

export interface AddressClaim {
  /** The account whose verification mail SES sent, and that alone may take SES's word; undefined when none may. */
  holder: number | undefined;
  /** Whether the service made the SES identity (so it may delete it once nobody uses the address). */
  identityMade: boolean;
  /** The accounts with a sender on the address. */
  users: number[];
}

function toClaim(item: Item): AddressClaim {
  const holder = Number(item.account_id);
  // Claims older than `users` and `identity_made` had one user, the holder, whose identity the service made.
  const users = item.users instanceof Set ? [...(item.users as Set<number>)].map(Number) : [holder];
  return { holder: holder === nobody ? undefined : holder, identityMade: item.identity_made !== false, users };
}

/** The address's claim, or undefined when no account uses it. */
export async function getAddressClaim(address: string): Promise<AddressClaim | undefined> {
  const item = await getItem(addressClaimKey(address));
  return item ? toClaim(item) : undefined;
}

/** The account holding the address's identity, or undefined when none does. */
export async function addressHolder(address: string): Promise<number | undefined> {
  return (await getAddressClaim(address))?.holder;
}

/**
 * Record that the account uses the address. The first account becomes its holder (`new`: the caller
 * then decides whether the service may make the identity, see `giveUpHolding`); later ones are users
 * only. What the claim was before, with the account among its users.
 */
export async function useAddress(accountId: number, address: string): Promise<'new' | 'held' | 'shared'> {
  const result = await updateItem({
    Key: addressClaimKey(address),
    UpdateExpression: 'SET #entity = :entity, #account = if_not_exists(#account, :account), #created = if_not_exists(#created, :now) ADD #users :me',
    ExpressionAttributeNames: { '#entity': 'entity', '#account': 'account_id', '#created': 'created_at', '#users': 'users' },
    ExpressionAttributeValues: { ':entity': 'address-claim', ':account': accountId, ':now': isoTimestamp(), ':me': new Set([accountId]) },
    ReturnValues: 'ALL_OLD',
  });
  if (!result.Attributes) return 'new';
  return toClaim(result.Attributes).holder === accountId ? 'held' : 'shared';
}

/**
 * The holder stops holding the address, and nobody will hold it while the claim lasts; with
 * `identityMade` false the service also never deletes its identity (it was made outside the service,
 * or the service never made one).
 */
export async function giveUpHolding(accountId: number, address: string, identityMade: boolean): Promise<void> {
  await unlessConditionFails(
    updateItem({
      Key: addressClaimKey(address),
      UpdateExpression: `SET #account = :nobody${identityMade ? '' : ', #made = :false'}`,
      ConditionExpression: '#account = :account',
      ExpressionAttributeNames: { '#account': 'account_id', ...(identityMade ? {} : { '#made': 'identity_made' }) },
      ExpressionAttributeValues: { ':account': accountId, ':nobody': nobody, ...(identityMade ? {} : { ':false': false }) },
    }),
  );
}

/**
 * The account stops using the address. The last user deletes the claim (`last`); otherwise the account
 * leaves the users and, if it was the holder, nobody holds the address from then on (another account
 * must not take SES's word for a click that was this one's). Nothing when it was not a user.
 */
export async function leaveAddress(accountId: number, address: string): Promise<'last' | 'left' | 'not-a-user'> {
  const claim = await getAddressClaim(address);
  if (!claim || !claim.users.includes(accountId)) return 'not-a-user';
  if (claim.users.length === 1) {
    const deleted = await conditionHeld(
      deleteItem({
        Key: addressClaimKey(address),
        // Still this account's alone: another may have joined since the read.
        ConditionExpression: '(attribute_not_exists(#users) AND #account = :account) OR (size(#users) = :one AND contains(#users, :account))',
        ExpressionAttributeNames: { '#users': 'users', '#account': 'account_id' },
        ExpressionAttributeValues: { ':account': accountId, ':one': 1 },
      }),
    );
    if (deleted) return 'last';
  }
  const holding = claim.holder === accountId;
  await unlessConditionFails(
    updateItem({
      Key: addressClaimKey(address),
      UpdateExpression: `${holding ? 'SET #account = :nobody ' : ''}DELETE #users :me`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#users': 'users', ...(holding ? { '#account': 'account_id' } : {}) },
      ExpressionAttributeValues: { ':me': new Set([accountId]), ...(holding ? { ':nobody': nobody } : {}) },
    }),
  );
  return 'left';
}
