// The `automation_for` text of automations: which forms name a target, and which do not.
import { parseAutomationTarget } from '../../functions/automations/target';

describe('parseAutomationTarget', () => {
  it.each([
    ['contacts_1', { table: 'contacts_', id: 1 }],
    ['segments_42', { table: 'segments_', id: 42 }],
  ])('reads %s', (text, target) => {
    expect(parseAutomationTarget(text)).toEqual(target);
  });

  it.each(['contacts_', 'contacts_0', 'contacts_01', 'lists_1', 'segments_1x', ' contacts_1', 'contacts_-1', 'CONTACTS_1', `contacts_${'9'.repeat(16)}`])(
    'refuses %j',
    (text) => {
      expect(parseAutomationTarget(text)).toBeUndefined();
    },
  );
});
