// `npm run --silent domains:verify -- --domain DOMAIN` stands in for DNS on the local stack: it marks
// the registered domain's identity verified, as SES does once it finds the DKIM CNAMEs, and stores
// the new status on the record of the one account that registered it. It prints
// `{"domain": ..., "account_id": ..., "status": "verified"}`. It works on the running local stack
// only (found through `$DATA_DIR/local-endpoints.json`): deployed, DNS and SES decide.
import { parseArgs } from 'node:util';
import { domainHolder } from '../../shared/identities/domain-repository';
import { refreshSenderDomain } from '../../shared/sender-verification/domain-service';
import { markLocalIdentityVerified } from '../../shared/identities/local-identities';
import { chooseTarget, explain, runScript } from './script-target';

const usage = 'usage: npm run --silent domains:verify -- --domain DOMAIN';

function usageError(message: string, cause?: unknown): Error {
  return new Error(`${message}; ${usage}`, { cause });
}

function parse(): { domain: string } {
  let parsed;
  try {
    parsed = parseArgs({ options: { domain: { type: 'string' }, table: { type: 'string' } }, strict: true });
  } catch (error) {
    throw usageError((error as Error).message, error);
  }
  if (parsed.values.table !== undefined) {
    throw new Error('a deployed domain is verified by DNS: publish the CNAMEs that sender-domains/save answered, then ask sender-domains/details');
  }
  const domain = parsed.values.domain?.trim().toLowerCase();
  if (!domain) throw usageError('say which domain with --domain');
  return { domain };
}

async function main(): Promise<void> {
  const { domain } = parse();
  const target = chooseTarget(undefined, undefined);
  let outcome: { domain: string; account_id: number; status: string };
  try {
    const accountId = await domainHolder(domain);
    if (accountId === undefined || !(await markLocalIdentityVerified(domain))) {
      throw new Error(`no account has registered ${domain}: register it with POST sender-domains/save first`);
    }
    const { status } = await refreshSenderDomain(accountId, domain);
    outcome = { domain, account_id: accountId, status };
  } catch (error) {
    throw new Error(explain(error as Error, target), { cause: error });
  }
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

runScript(main);
