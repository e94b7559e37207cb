// `npm run --silent account:keys -- rotate --account ID [--table TABLE [--region REGION]]` adds a key
// pair to an account and prints it as one JSON object (the old pairs keep working);
// `npm run --silent account:keys -- revoke --public-key KEY [--table TABLE [--region REGION]]` revokes
// one and prints `{"revoked": KEY}`. Without --table they work on the running local stack (found
// through `$DATA_DIR/local-endpoints.json`); with --table, on that deployed table.
import { parseArgs } from 'node:util';
import { addKeyPair, LastKeyPairError, revokeKeyPair } from '../../shared/accounts/repository';
import { RecordNotFound } from '../../shared/table/errors';
import { chooseTarget, explain, runScript, type Target } from './script-target';

const usage =
  'usage: npm run --silent account:keys -- rotate --account ID | revoke --public-key KEY [--table TABLE [--region REGION]]';

type Command = { name: 'rotate'; accountId: number } | { name: 'revoke'; publicKey: string };

function usageError(message: string, cause?: unknown): Error {
  return new Error(`${message}; ${usage}`, { cause });
}

function parse(): { command: Command; table?: string; region?: string } {
  let parsed;
  try {
    parsed = parseArgs({
      options: { account: { type: 'string' }, 'public-key': { type: 'string' }, table: { type: 'string' }, region: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usageError((error as Error).message, error);
  }
  const { values, positionals } = parsed;
  const [name, ...extra] = positionals;
  if (!name) throw usageError('say rotate or revoke');
  if (extra.length) throw usageError(`unexpected argument '${extra[0]}'`);
  if (values.region && !values.table) throw usageError('--region goes with --table');
  const account = values.account?.trim();
  const publicKey = values['public-key']?.trim();
  const where = { table: values.table, region: values.region };
  if (name === 'rotate') {
    if (publicKey !== undefined) throw usageError('rotate takes --account only, not --public-key');
    if (!account) throw usageError('rotate needs --account ID');
    const accountId = Number(account);
    if (!/^\d+$/.test(account) || !Number.isSafeInteger(accountId) || accountId < 1) {
      throw usageError(`--account must be a positive integer, got '${account}'`);
    }
    return { command: { name, accountId }, ...where };
  }
  if (name === 'revoke') {
    if (account !== undefined) throw usageError('revoke takes --public-key only, not --account');
    if (!publicKey) throw usageError('revoke needs --public-key KEY');
    return { command: { name, publicKey }, ...where };
  }
  throw usageError(`unknown command '${name}': say rotate or revoke`);
}

async function run(command: Command): Promise<unknown> {
  if (command.name === 'rotate') return addKeyPair(command.accountId);
  await revokeKeyPair(command.publicKey);
  return { revoked: command.publicKey };
}

/** One line for what went wrong: the account's or key's own refusal, else the table call's failure. */
function describeFailure(error: Error, command: Command, target: Target): string {
  if (error instanceof LastKeyPairError) return error.message;
  if (error instanceof RecordNotFound) {
    return command.name === 'rotate' ? `account ${command.accountId} does not exist` : `no key ${command.publicKey}: it does not exist or was already revoked`;
  }
  return explain(error, target);
}

async function main(): Promise<void> {
  const { command, table, region } = parse();
  const target = chooseTarget(table, region);
  try {
    process.stdout.write(`${JSON.stringify(await run(command))}\n`);
  } catch (error) {
    throw new Error(describeFailure(error as Error, command, target), { cause: error });
  }
}

runScript(main);
