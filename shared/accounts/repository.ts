// Accounts and their credentials: creation, and resolving a public key to its account.
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { hashSecret, newPublicKey, newSecretKey } from './credentials';
import { isoTimestamp } from '../time';
import { db, tableName } from '../table/client';
import { nextAccountId } from '../table/ids';
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

/** Create an account with a fresh key pair. The secret is returned here and never again. */
export async function createAccount(name: string): Promise<NewAccount> {
  const accountId = await nextAccountId();
  const publicKey = newPublicKey();
  const secretKey = newSecretKey();
  const createdAt = isoTimestamp();
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: { ...accountKey(accountId), account_id: accountId, name, created_at: createdAt },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...credentialKey(publicKey),
              account_id: accountId,
              secret_hash: hashSecret(secretKey),
              created_at: createdAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
  return { account_id: accountId, public_key: publicKey, secret_key: secretKey };
}

/** The credential stored for a public key, in one GetItem. */
export async function findCredential(publicKey: string): Promise<StoredCredential | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: credentialKey(publicKey) }));
  if (!result.Item) return undefined;
  return { accountId: Number(result.Item.account_id), secretHash: String(result.Item.secret_hash) };
}
