// Every table key is built here and nowhere else. Account data lives in partitions that start with
// the account id (`A#<id>#<entity>`), so one account's records can never be read through another's key.

export interface Key {
  pk: string;
  sk: string;
}

/** Ids sort as text in DynamoDB; zero-padding keeps them in numeric order. */
export function idSortKey(id: number): string {
  return String(id).padStart(12, '0');
}

/** The partition holding one kind of record of one account. */
export function entityPartition(accountId: number, entity: string): string {
  return `A#${accountId}#${entity}`;
}

/** The item of one record of one kind, by its integer id. */
export function entityKey(accountId: number, entity: string, id: number): Key {
  return { pk: entityPartition(accountId, entity), sk: idSortKey(id) };
}

// Accounts and credentials

/** The account profile. */
export function accountKey(accountId: number): Key {
  return { pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' };
}

/** A public key's own item: resolves to its account and the secret's hash in one GetItem. */
export function credentialKey(publicKey: string): Key {
  return { pk: `CREDENTIAL#${publicKey}`, sk: 'CREDENTIAL' };
}

/** The counter that hands out account ids. */
export function accountIdCounterKey(): Key {
  return { pk: 'GLOBAL', sk: 'COUNTER#account' };
}

/** The counter that hands out ids of one kind of record within one account. */
export function idCounterKey(accountId: number, entity: string): Key {
  return { pk: `A#${accountId}`, sk: `COUNTER#${entity}` };
}

// Contact types

export const CONTACT_TYPE = 'contact-type';

export function contactTypeKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT_TYPE, id);
}

export function contactTypePartition(accountId: number): string {
  return entityPartition(accountId, CONTACT_TYPE);
}

// Scheduled jobs (the local scheduler adapter; EventBridge Scheduler keeps them when deployed)

/** The gsi1 partition that holds every pending local schedule, so due jobs come from one Query. */
export const SCHEDULE_PARTITION = 'SCHEDULE';

/** A local schedule's own item, by its name (names are unique, as in EventBridge Scheduler). */
export function scheduledJobKey(name: string): Key {
  return { pk: `SCHEDULE#${name}`, sk: 'SCHEDULE' };
}

/** The gsi1 keys that order pending schedules by due time: `<ISO due time>#<name>`. */
export function scheduledJobDueKey(dueAt: Date, name: string): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: SCHEDULE_PARTITION, gsi1sk: `${dueAt.toISOString()}#${name}` };
}

/** Exclusive gsi1sk bound for schedules due at or before `now`: '$' sorts right after the '#' separator. */
export function scheduledJobsDueBound(now: Date): string {
  return `${now.toISOString()}$`;
}
