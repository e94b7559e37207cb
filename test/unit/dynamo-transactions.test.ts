// Transactions: the per-action codes of a TransactionCanceledException (nothing for other errors),
// DynamoDB's item sizes, and writes packed into transactions within 100 actions and 4 MB.
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { itemBytes } from '../../shared/table/item-size';
import { cancellationCodes, isTransactionCancelled, packTransactions, TransactionTooLarge, type TransactionItem } from '../../shared/table/transactions';

describe('cancellationCodes', () => {
  it('reads one code per action from the SDK exception, None where an action gave none', () => {
    const error = new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
      $metadata: {},
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }, {}],
    });
    expect(cancellationCodes(error)).toEqual(['None', 'ConditionalCheckFailed', 'None']);
    expect(isTransactionCancelled(error)).toBe(true);
  });

  it('reads an error of the same shape (the name is what counts)', () => {
    const error = Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'TransactionConflict' }] });
    expect(cancellationCodes(error)).toEqual(['TransactionConflict']);
  });

  it('is an empty list for a cancellation without reasons', () => {
    expect(cancellationCodes({ name: 'TransactionCanceledException' })).toEqual([]);
  });

  it('is undefined for any other error', () => {
    const conditionFailed = new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
    for (const error of [conditionFailed, new Error('boom'), { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] }, undefined, null, 'TransactionCanceledException']) {
      expect(cancellationCodes(error)).toBeUndefined();
      expect(isTransactionCancelled(error)).toBe(false);
    }
  });
});

describe('itemBytes', () => {
  it('counts names and values by DynamoDB\'s rules', () => {
    // Each name, and: a string its UTF-8; a number one byte per two digits plus one; binary its length;
    // true and null one; a list 3 plus 1 per element; a map the same, with its element names.
    const item = { pk: 'A#1', sk: '\u00e9', n: 12345, b: Buffer.alloc(10), t: true, z: null, l: ['ab', 1], m: { key: 'v' } };
    expect(itemBytes(item)).toBe(2 + 3 + (2 + 2) + (1 + 4) + (1 + 10) + (1 + 1) + (1 + 1) + (1 + 3 + (2 + 1) + (2 + 1)) + (1 + 3 + (3 + 1 + 1)));
  });
});

describe('packTransactions', () => {
  const put = (bytes: number): TransactionItem => ({ Put: { TableName: 't', Item: { d: 'x'.repeat(bytes - 1) } } });

  it('closes a transaction at 100 actions', () => {
    const units = Array.from({ length: 120 }, (_, i) => i);
    expect(packTransactions(units, () => [put(10), put(10)]).map((group) => group.length)).toEqual([50, 50, 20]);
  });

  it('closes a transaction before its items pass 4 MB, keeping each unit whole', () => {
    const units = Array.from({ length: 12 }, (_, i) => i);
    const groups = packTransactions(units, () => [put(350 * 1024), put(100)]);
    expect(groups.map((group) => group.length)).toEqual([11, 1]);
    expect(groups.flat()).toEqual(units);
  });

  it('leaves room for what every transaction carries beside its units', () => {
    expect(packTransactions([1, 2, 3, 4], () => [put(10)], { actions: 98, bytes: 0 }).map((group) => group.length)).toEqual([2, 2]);
    expect(packTransactions([1, 2], () => [put(2 * 1024 * 1024)], { actions: 1, bytes: 100 }).map((group) => group.length)).toEqual([1, 1]);
  });

  it('refuses a unit that fits no transaction', () => {
    expect(() => packTransactions([1], () => Array.from({ length: 101 }, () => put(10)))).toThrow(TransactionTooLarge);
    expect(() => packTransactions([1], () => Array.from({ length: 11 }, () => put(400 * 1024)))).toThrow(TransactionTooLarge);
  });
});
