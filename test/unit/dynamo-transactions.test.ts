// Reading cancelled transactions: the per-action codes of a TransactionCanceledException, nothing for other errors.
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { cancellationCodes, isTransactionCancelled } from '../../shared/table/transactions';

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
