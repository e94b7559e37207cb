// Fresh accounts for integration tests, so each test sees only its own records.
import { createAccount } from '../../shared/accounts/repository';
import type { Keys } from './events';

export async function newAccount(name = 'Test'): Promise<Keys & { account_id: number }> {
  return createAccount(name);
}
