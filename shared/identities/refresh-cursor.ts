// The periodic identity check's cursors: per kind of the pending index, the position of the last entry
// it looked at, so each run goes on where the last one stopped and every waiting entry has its turn.
import { getItem, updateItem } from '../table/records';
import { refreshCursorKey, type PendingKind } from './keys';

/** The position the last run stopped after; undefined to start from the beginning. */
export async function refreshCursor(kind: PendingKind): Promise<string | undefined> {
  const position = (await getItem(refreshCursorKey(kind)))?.position;
  return typeof position === 'string' && position !== '' ? position : undefined;
}

/** Remember where this run stopped (undefined: the next run starts from the beginning). */
export async function saveRefreshCursor(kind: PendingKind, position: string | undefined): Promise<void> {
  await updateItem({
    Key: refreshCursorKey(kind),
    UpdateExpression: 'SET #entity = :entity, #position = :position',
    ExpressionAttributeNames: { '#entity': 'entity', '#position': 'position' },
    ExpressionAttributeValues: { ':entity': 'identity-refresh-cursor', ':position': position ?? '' },
  });
}
