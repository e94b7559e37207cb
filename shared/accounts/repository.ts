// Accounts and their credentials: creation, key pairs added and revoked, and resolving a public key
// to its account. The profile counts the account's key pairs, so the last one cannot be revoked.
import { completeMarkerPut } from '../suppressions/state';
import { hashSecret, newPublicKey, newSecretKey } from './credentials';
import { isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextAccountId } from '../table/ids';
import { conditionHeld, getItem } from '../table/records';
import { cancellationCodes, transactWrite } from '../table/transactions';
import { accountKey, credentialKey } from './keys';

export interface Account {
  id: number;
  name: string;
}

export interface NewAccount {
  account_id: number;
  public_key: string;
  secret_key: string;
}

export interface StoredCredential {
  accountId: number;
  secretHash: string;
}

/** Revoking this key pair would leave its account with none. */
export class LastKeyPairError extends Error {
  constructor(readonly publicKey: string, readonly accountId: number) {
    super(`${publicKey} is the last key of account ${accountId}; rotate first, then revoke it`);
    this.name = 'LastKeyPairError';
  }
}

/** A fresh key pair's credential item: the secret only as its hash. */
function newCredential(accountId: number, createdAt: string) {
  const publicKey = newPublicKey();
  const secretKey = newSecretKey();
  const item = { ...credentialKey(publicKey), account_id: accountId, secret_hash: hashSecret(secretKey), created_at: createdAt };
  return { item, keys: { account_id: accountId, public_key: publicKey, secret_key: secretKey } };
}

/** Create an account with a fresh key pair. The secret is returned here and never again. */
export async function createAccount(name: string): Promise<NewAccount> {
  const accountId = await nextAccountId();
  const createdAt = isoTimestamp();
  const credential = newCredential(accountId, createdAt);
  await transactWrite([
    {
      Put: {
        Item: { ...accountKey(accountId), account_id: accountId, name, created_at: createdAt, key_count: 1 },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { Put: { Item: credential.item, ConditionExpression: 'attribute_not_exists(pk)' } },
    // No list entry yet, so every address's suppression state is complete: its sends read that alone.
    completeMarkerPut(accountId),
  ]);
  return credential.keys;
}

/**
 * Add a key pair to an existing account; its other pairs keep working. The secret is returned here
 * and never again. A profile without a count predates rotation, so it has exactly one pair.
 */
export async function addKeyPair(accountId: number): Promise<NewAccount> {
  const credential = newCredential(accountId, isoTimestamp());
  const added = await conditionHeld(
    transactWrite([
      {
        Update: {
          Key: accountKey(accountId),
          UpdateExpression: 'SET key_count = if_not_exists(key_count, :one) + :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      { Put: { Item: credential.item, ConditionExpression: 'attribute_not_exists(pk)' } },
    ]),
    { action: 0 },
  );
  if (!added) throw new RecordNotFound('account', accountId);
  return credential.keys;
}

/**
 * Revoke a key pair: its credential item is deleted, so the key resolves to nothing (containers that
 * cached it refuse it once their cache entry expires). The account's last pair is refused.
 */
export async function revokeKeyPair(publicKey: string): Promise<{ accountId: number }> {
  const credential = await findCredential(publicKey);
  if (!credential) throw new RecordNotFound('key', publicKey);
  const { accountId } = credential;
  try {
    await transactWrite([
      {
        Delete: {
          Key: credentialKey(publicKey),
          ConditionExpression: 'account_id = :account',
          ExpressionAttributeValues: { ':account': accountId },
        },
      },
      {
        // A missing count is an account from before rotation: one pair, so the last.
        Update: {
          Key: accountKey(accountId),
          UpdateExpression: 'SET key_count = key_count - :one',
          ConditionExpression: 'key_count > :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    ]);
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[0] === 'ConditionalCheckFailed') throw new RecordNotFound('key', publicKey);
    if (codes?.[1] === 'ConditionalCheckFailed') throw new LastKeyPairError(publicKey, accountId);
    throw error;
  }
  return { accountId };
}

/** The credential stored for a public key, in one GetItem. */
export async function findCredential(publicKey: string): Promise<StoredCredential | undefined> {
  const item = await getItem(credentialKey(publicKey));
  if (!item) return undefined;
  return { accountId: Number(item.account_id), secretHash: String(item.secret_hash) };
}
