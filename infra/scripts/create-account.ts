// `npm run --silent account:create -- --name NAME [--table TABLE [--region REGION]]`: create an account
// and its SES tenant (made lazily before its first mail if SES cannot make it now), and print its keys as one JSON object on stdout. Without --table it writes to the running local
// stack (found through `$DATA_DIR/local-endpoints.json`); with --table, to that deployed table using
// the ordinary AWS credentials.
import { parseArgs } from 'node:util';
import { openAccount } from '../../shared/tenancy/account-service';
import { chooseTarget, explain, runScript } from './script-target';

const usage = 'usage: npm run --silent account:create -- --name NAME [--table TABLE [--region REGION]]';

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: { name: { type: 'string' }, table: { type: 'string' }, region: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}; ${usage}`, { cause: error });
  }
  const name = values.name?.trim();
  if (!name) throw new Error(`--name is required; ${usage}`);
  if (values.region && !values.table) throw new Error(`--region goes with --table; ${usage}`);

  const target = chooseTarget(values.table, values.region);
  try {
    const account = await openAccount(name);
    process.stdout.write(`${JSON.stringify(account)}\n`);
  } catch (error) {
    throw new Error(explain(error as Error, target), { cause: error });
  }
}

runScript(main);
