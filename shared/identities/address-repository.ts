// Address claims: which account holds an address's SES identity. SES keeps one identity per address
// for the whole AWS account, so once one account has verified `hello@acme.com`, SES would tell any
// other account saving it that it is verified. Only the holder takes SES's word; another account
// proves the address itself through our own signed link (functions/senders/verification.ts).
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isoTimestamp } from '../time';
import { db, tableName } from '../table/client';
import { getItem, isConditionFailure } from '../table/records';
import { addressClaimKey } from './keys';

/** The account holding the address's identity, or undefined when none does. */
export async function addressHolder(address: string): Promise<number | undefined> {
  const claim = await getItem(addressClaimKey(address));
  return claim ? Number(claim.account_id) : undefined;
}

/** Claim the address for the account unless another holds it: whether the account holds it now. */
export async function claimAddress(accountId: number, address: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: addressClaimKey(address),
        UpdateExpression: 'SET #entity = :entity, #account = :account, #created = if_not_exists(#created, :now)',
        ConditionExpression: 'attribute_not_exists(pk) OR #account = :account',
        ExpressionAttributeNames: { '#entity': 'entity', '#account': 'account_id', '#created': 'created_at' },
        ExpressionAttributeValues: { ':entity': 'address-claim', ':account': accountId, ':now': isoTimestamp() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Give up the account's claim; whether it held one (another account's claim is left alone). */
export async function releaseAddress(accountId: number, address: string): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: addressClaimKey(address),
        ConditionExpression: '#account = :account',
        ExpressionAttributeNames: { '#account': 'account_id' },
        ExpressionAttributeValues: { ':account': accountId },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
