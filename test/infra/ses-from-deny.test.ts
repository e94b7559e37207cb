// The functions that send the accounts' own mail may never send From the service's own domain or a
// subdomain of it, whatever identity SES would authorize; the one that also sends system mail keeps
// exactly the system From address. Checked on the template and with an IAM policy simulator.
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { needsOf } from '../../infra/stack/function-needs';
import { eventFunctionNames } from '../../infra/stack/service-functions';
import { httpFamilies } from '../../shared/routes';
import { denialsFor, policyStatementsOf, synthesize, type PolicyStatement, type Synthesized } from './support';

const allFunctions = [...httpFamilies, ...eventFunctionNames()];
const account = '111122223333';
const region = 'eu-west-1';

/** The template's intrinsics in a policy, resolved with a fixed account and region. */
function concrete(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(concrete);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  if ('Ref' in object) return ({ 'AWS::Partition': 'aws', 'AWS::Region': region, 'AWS::AccountId': account } as Record<string, string>)[object.Ref as string] ?? `ref-${String(object.Ref)}`;
  if ('Fn::GetAtt' in object) return (object['Fn::GetAtt'] as string[]).join('-');
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => String(concrete(part))).join(separator);
  }
  return Object.fromEntries(Object.entries(object).map(([key, member]) => [key, concrete(member)]));
}

describe("the service's own sender domain is denied to the accounts' mail", () => {
  // A stage whose sender domain is not the customers' (example.com would hide a fault behind both).
  const senderDomain = 'mail.service.test';
  const systemFrom = `no-reply@${senderDomain}`;
  let synthesized: Synthesized;

  beforeAll(() => {
    synthesized = synthesize({ senderDomain, systemFromEmail: systemFrom });
  });

  const accountMailers = allFunctions.filter((name) => needsOf(name).accountMail === true);

  test('every function that sends the accounts\' mail, and no other, denies SendEmail and SendRawEmail From that domain', () => {
    expect(accountMailers).toEqual(['test-mails', 'send-deliver', 'automation-steps', 'opt-in-mail']);
    // Of them, only the deliverer also sends system mail (a send's summary).
    expect(accountMailers.filter((name) => needsOf(name).systemMail === true)).toEqual(['send-deliver']);
    for (const name of allFunctions) {
      const expected: PolicyStatement[] = needsOf(name).accountMail
        ? [
            {
              Effect: 'Deny',
              Action: ['ses:SendEmail', 'ses:SendRawEmail'],
              Resource: '*',
              Condition: {
                StringLike: { 'ses:FromAddress': [`*@${senderDomain}`, `*@*.${senderDomain}`] },
                ...(needsOf(name).systemMail ? { StringNotEquals: { 'ses:FromAddress': systemFrom } } : {}),
              },
            },
          ]
        : [];
      expect({ name, denials: denialsFor(synthesized, name, 'ses:') }).toEqual({ name, denials: expected });
    }
  });

  /** What IAM decides for one SES v2 SendEmail of the function, From `from` (authorized on the From's domain identity). */
  async function decision(name: string, from: string): Promise<string> {
    const statements = concrete(policyStatementsOf(synthesized, name)) as object[];
    const domain = from.slice(from.indexOf('@') + 1);
    const response = await runSimulation(
      {
        identityPolicies: [{ name: `${name}-policy`, policy: { Version: '2012-10-17', Statement: statements } }],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        request: {
          principal: `arn:aws:iam::${account}:role/${name}`,
          action: 'ses:SendEmail',
          resource: { resource: `arn:aws:ses:${region}:${account}:identity/${domain}`, accountId: account },
          contextVariables: { 'ses:FromAddress': from },
        },
      },
      {},
    );
    if (response.resultType !== 'single') throw new Error(`${name}: ${JSON.stringify(response)}`);
    return response.overallResult;
  }

  test.each(['test-mails', 'send-deliver', 'automation-steps'])('%s may send From a customer domain, never From the service\'s domain or its subdomains', async (name) => {
    const decisions = Object.fromEntries(
      await Promise.all(
        ['news@customer.test', 'ceo@news.customer.test', `a@x${senderDomain}`, `ceo@${senderDomain}`, `billing@eu.${senderDomain}`, systemFrom].map(async (from) => [from, await decision(name, from)]),
      ),
    );
    expect(decisions).toEqual({
      'news@customer.test': 'Allowed',
      'ceo@news.customer.test': 'Allowed',
      // A sibling whose name merely ends like the service's domain.
      [`a@x${senderDomain}`]: 'Allowed',
      [`ceo@${senderDomain}`]: 'ExplicitlyDenied',
      [`billing@eu.${senderDomain}`]: 'ExplicitlyDenied',
      // System mail (send summaries) goes From exactly SYSTEM_FROM_EMAIL; the others never send it.
      [systemFrom]: name === 'send-deliver' ? 'Allowed' : 'ExplicitlyDenied',
    });
  });
});
