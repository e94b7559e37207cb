// Contact types (the spec's lists of contacts): every table access for them.
import { isoTimestamp } from '../time';
import type { TransactionAction } from '../table/transactions';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { CONTACT_TYPE, contactTypeClosingAttribute, contactTypeKey, contactTypeOptInEverAttribute, contactTypePartition } from './keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { deleteExistingItem, getItem, getItems, putNewItem, updateExistingItem, withoutKeys, type Item } from '../table/records';

export interface ContactType {
  id: number;
  user_id: number;
  name: string;
  /** 1: contacts created in the type are pending until they press the button of their confirmation mail. */
  double_opt_in: 0 | 1;
  /** The sender the confirmation mail comes from; null while double opt-in was never set. */
  opt_in_sender_id: number | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContactTypeWithCount extends ContactType {
  contacts_count: number;
}

/** What a type says about consent; a type stored before double opt-in existed has it off. */
export interface OptInSettings {
  double_opt_in: 0 | 1;
  opt_in_sender_id: number | null;
}

function toContactType(item: Item): ContactType {
  const { id, user_id, name, deleted_at, created_at, updated_at } = withoutKeys<ContactTypeWithCount>(item);
  return { id, user_id, name, ...optInOf(item), deleted_at: deleted_at ?? null, created_at, updated_at };
}

/** The type item's consent settings. */
export function optInOf(item: Item): OptInSettings {
  return { double_opt_in: item.double_opt_in === 1 ? 1 : 0, opt_in_sender_id: item.opt_in_sender_id === undefined || item.opt_in_sender_id === null ? null : Number(item.opt_in_sender_id) };
}

function withCount(item: Item): ContactTypeWithCount {
  return { ...toContactType(item), contacts_count: Number(item.contacts_count ?? 0) };
}

/** Whether the type is being deleted: its contacts are leaving, and to clients it is gone already. */
function isClosing(item: Item | undefined): boolean {
  return item?.[contactTypeClosingAttribute] !== undefined;
}

/** One page of the account's contact types, in id order (a type being deleted is left out). */
export async function listContactTypesPage(accountId: number, page: PageRequest): Promise<ListPage<ContactTypeWithCount>> {
  return mapPage(await queryListPage({ partition: contactTypePartition(accountId), without: contactTypeClosingAttribute }, page), withCount);
}

/** The contact types among `ids` (one BatchGetItem per 100), by id: a page of contacts shows its types without listing them all. */
export async function getContactTypes(accountId: number, ids: readonly number[]): Promise<Map<number, ContactType>> {
  const items = await getItems([...new Set(ids)].map((id) => contactTypeKey(accountId, id)));
  return new Map(items.map((item) => [Number(item.id), toContactType(item)]));
}

export async function getContactType(accountId: number, id: number): Promise<ContactType> {
  const item = await getItem(contactTypeKey(accountId, id));
  if (!item || isClosing(item)) throw new RecordNotFound(CONTACT_TYPE, id);
  return toContactType(item);
}

/** The contact type, when it exists and is not being deleted (contacts may join it). */
export async function openContactType(accountId: number, id: number): Promise<ContactType | undefined> {
  const item = await getItem(contactTypeKey(accountId, id));
  return item && !isClosing(item) ? toContactType(item) : undefined;
}

/** Whether the contact type exists in the account (for validating references to it). */
export async function contactTypeExists(accountId: number, id: number): Promise<boolean> {
  const item = await getItem(contactTypeKey(accountId, id));
  return item !== undefined && !isClosing(item);
}

export async function addContactType(accountId: number, name: string, optIn: OptInSettings = { double_opt_in: 0, opt_in_sender_id: null }): Promise<ContactType> {
  const id = await nextId(accountId, CONTACT_TYPE);
  const now = isoTimestamp();
  const record: ContactTypeWithCount = { id, user_id: accountId, name, ...optIn, deleted_at: null, created_at: now, updated_at: now, contacts_count: 0 };
  const created = await putNewItem({ ...contactTypeKey(accountId, id), entity: CONTACT_TYPE, ...record, ...everOptIn(optIn) });
  if (!created) throw new Error(`Contact type id ${id} of account ${accountId} was already taken`);
  const { contacts_count: _count, ...contactType } = record;
  return contactType;
}

/**
 * Marks a type that has ever had double opt-in on: only such a type can hold pending contacts (they
 * stay pending when it is turned off), so a send to a segment of any other type reads no contact to
 * find them. Never removed.
 */
function everOptIn(optIn: OptInSettings): Item {
  return optIn.double_opt_in === 1 ? { [contactTypeOptInEverAttribute]: 1 } : {};
}

/** Whether the type may hold pending contacts (see everOptIn); false for a type that is gone. */
export async function typeMayHoldPending(accountId: number, id: number): Promise<boolean> {
  return (await getItem(contactTypeKey(accountId, id)))?.[contactTypeOptInEverAttribute] === 1;
}

/** Rename a type and, when given, change its consent settings. */
export async function updateContactType(accountId: number, id: number, name: string, optIn?: OptInSettings): Promise<ContactType> {
  const item = await updateExistingItem(
    contactTypeKey(accountId, id),
    { name, ...(optIn ?? {}), ...(optIn ? everOptIn(optIn) : {}), updated_at: isoTimestamp() },
    { condition: 'attribute_not_exists(#closing)', names: { '#closing': contactTypeClosingAttribute } },
  );
  if (!item) throw new RecordNotFound(CONTACT_TYPE, id);
  return toContactType(item);
}

/**
 * The write that marks a type closing, for the transaction that starts its delete job: from then on
 * no contact may join it and clients no longer see it. Refused when the type does not exist or is
 * closing already.
 */
export function contactTypeClosing(accountId: number, id: number): TransactionAction {
  return {
    Update: {
      Key: contactTypeKey(accountId, id),
      UpdateExpression: 'SET #closing = :closing, updated_at = :now',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#closing)',
      ExpressionAttributeNames: { '#closing': contactTypeClosingAttribute },
      ExpressionAttributeValues: { ':closing': 1, ':now': isoTimestamp() },
    },
  };
}

/** A check, for a transaction that lets contacts join the type, that it exists and is not closing. */
export function contactTypeOpen(accountId: number, id: number): TransactionAction {
  return {
    ConditionCheck: {
      Key: contactTypeKey(accountId, id),
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#closing)',
      ExpressionAttributeNames: { '#closing': contactTypeClosingAttribute },
    },
  };
}

/** Delete the contact type's own item; false when it was already gone. */
export async function removeContactType(accountId: number, id: number): Promise<boolean> {
  return (await deleteExistingItem(contactTypeKey(accountId, id))) !== undefined;
}
