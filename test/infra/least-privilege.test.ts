// Each function is granted exactly the DynamoDB and SES actions its code can perform: the actions are
// read from the function's tree-shaken bundle (only the code its handler can reach), so a grant wider
// than the code needs fails here, and so does code that starts sending a command it is not granted.
import { buildSync } from 'esbuild';
import { needsOf } from '../../infra/stack/function-needs';
import { repositoryHandlers } from '../../infra/stack/lambda-bundling';
import { eventFunctionNames } from '../../infra/stack/service-functions';
import { httpFamilies } from '../../shared/routes';
import { tableDefinition } from '../../shared/table/definition';
import { actionsOf, statementsFor, synthesize, type PolicyStatement, type Synthesized } from './support';

/** A module of the repository as it stands in a bundle: its path and the code of it that was kept. */
interface BundledModule {
  path: string;
  code: string;
}

// Modules the deployed functions never run: the identity stand-in (shared/identities/local-identities.ts)
// is chosen only by shared/identities/identity-port.ts when the runtime is local, but it is in every
// bundle that manages identities. (The local scheduler is dropped from Lambda bundles by their build.)
const localOnly = new Set(['shared/identities/local-identities.ts']);

/** A function's bundle: the whole output (imports stay where each module was, under local names) and its modules. */
interface Bundle {
  text: string;
  modules: BundledModule[];
}

const bundles = new Map<string, Bundle>();

/**
 * The repository code of a function's bundle that its handler can reach: an ES module build with
 * esbuild's tree shaking, packages left out (their imports stay, naming the commands used) and not
 * minified, so each module keeps its `// path` heading and the names it imports.
 */
function bundledModules(name: string): Bundle {
  const cached = bundles.get(name);
  if (cached) return cached;
  const result = buildSync({
    entryPoints: [repositoryHandlers.entryFor(name)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    treeShaking: true,
    // As the Lambda bundles are built (infra/stack/lambda-bundling.ts): code only a local run needs is dropped.
    define: { 'process.env.LAMBDA_BUNDLE': '"true"' },
    absWorkingDir: repositoryHandlers.projectRoot,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]?.text ?? '';
  const parts = text.split(/^\/\/ ((?:functions|shared|infra)\/\S+\.ts)$/m);
  const modules: BundledModule[] = [];
  for (let i = 1; i < parts.length; i += 2) modules.push({ path: parts[i] ?? '', code: parts[i + 1] ?? '' });
  const bundle = { text, modules: modules.filter((module) => !localOnly.has(module.path)) };
  bundles.set(name, bundle);
  return bundle;
}

/** Local name -> exported name of everything the bundle imports from the package. */
function importedFrom(text: string, packageName: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)"/g)) {
    if (match[2] !== packageName) continue;
    for (const specifier of (match[1] ?? '').split(',')) {
      const [exported, local] = specifier.trim().split(/\s+as\s+/);
      if (exported) names.set(local ?? exported, exported);
    }
  }
  return names;
}

/** The commands of these packages the kept code constructs, by exported name, with the modules constructing them. */
function commandsSent(bundle: Bundle, packages: string[]): Map<string, BundledModule[]> {
  const classes = new Map<string, string>();
  for (const packageName of packages) for (const [local, exported] of importedFrom(bundle.text, packageName)) classes.set(local, exported);
  const sent = new Map<string, BundledModule[]>();
  for (const module of bundle.modules) {
    const code = module.code.replace(/^import\s*\{[^}]*\}\s*from\s*"[^"]*";?$/gm, '');
    for (const match of code.matchAll(/(\bnew\s+)?\b(\w+)\b/g)) {
      const command = classes.get(match[2] ?? '');
      if (!command?.endsWith('Command')) continue;
      // A command class kept in any other way (a table of constructors, say) would hide what is sent.
      if (!match[1]) throw new Error(`${module.path} uses ${command} other than by constructing it: extend ${__filename} to read what it sends`);
      sent.set(command, [...(sent.get(command) ?? []), module]);
    }
  }
  return sent;
}

/** The IAM action of each DynamoDB command (document client or low-level); a transaction's come from its items. */
const dynamoActionOf: Record<string, string> = {
  GetCommand: 'GetItem',
  GetItemCommand: 'GetItem',
  PutCommand: 'PutItem',
  PutItemCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  UpdateItemCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  DeleteItemCommand: 'DeleteItem',
  QueryCommand: 'Query',
  ScanCommand: 'Scan',
  BatchGetCommand: 'BatchGetItem',
  BatchGetItemCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
  BatchWriteItemCommand: 'BatchWriteItem',
  TransactGetCommand: 'GetItem',
  TransactGetItemsCommand: 'GetItem',
};

/** TransactWriteItems is authorized per item: each kind of item needs its own action. */
const transactionItemActions: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

interface TableUse {
  /** IAM actions on the table, without the `dynamodb:` prefix, sorted. */
  actions: string[];
  /** The indexes it queries, sorted. */
  indexes: string[];
}

function tableUseOf(name: string): TableUse {
  const bundle = bundledModules(name);
  const sent = commandsSent(bundle, ['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb']);
  const actions = new Set<string>();
  for (const command of sent.keys()) {
    if (command === 'TransactWriteCommand' || command === 'TransactWriteItemsCommand') {
      // Items are built as object literals (`{ Put: {...} }`) wherever the kept code builds them.
      for (const module of bundle.modules) {
        for (const match of module.code.matchAll(/[{,]\s*(Put|Update|Delete|ConditionCheck)\s*[:,}]/g)) actions.add(transactionItemActions[match[1] ?? ''] ?? '');
      }
      continue;
    }
    const action = dynamoActionOf[command];
    if (!action) throw new Error(`${name} sends ${command}: map it to its IAM action in ${__filename}`);
    actions.add(action);
  }
  // An index is queried by name: `index: 'gsi1'` through shared/table/records.ts, or IndexName directly.
  const code = bundle.modules.map((module) => module.code).join('\n');
  const indexes = actions.has('Query') ? tableDefinition.indexes.map((index) => index.name).filter((index) => new RegExp(`["'\`]${index}["'\`]`).test(code)) : [];
  return { actions: [...actions].sort(), indexes: [...indexes].sort() };
}

/** The IAM action of each SES v2 identity command (shared/identities/ses-identities.ts). */
const identityActionOf: Record<string, string> = {
  CreateEmailIdentityCommand: 'ses:CreateEmailIdentity',
  GetEmailIdentityCommand: 'ses:GetEmailIdentity',
  DeleteEmailIdentityCommand: 'ses:DeleteEmailIdentity',
  SendCustomVerificationEmailCommand: 'ses:SendCustomVerificationEmail',
  // And of the identity count (shared/identities/identity-count.ts).
  ListEmailIdentitiesCommand: 'ses:ListEmailIdentities',
  // And of the tenant port (shared/tenants/ses-tenants.ts, ses-tenant-status.ts).
  CreateTenantCommand: 'ses:CreateTenant',
  GetTenantCommand: 'ses:GetTenant',
  CreateTenantResourceAssociationCommand: 'ses:CreateTenantResourceAssociation',
  // And of the suppression-list port (shared/mail/suppression-list.ts).
  DeleteSuppressedDestinationCommand: 'ses:DeleteSuppressedDestination',
};

/** The SES actions the kept code needs: SES v2 SendEmail is authorized by the kind of content it carries. */
function sesActionsOf(name: string): string[] {
  const bundle = bundledModules(name);
  const actions = new Set<string>();
  for (const command of commandsSent(bundle, ['@aws-sdk/client-ses']).keys()) throw new Error(`${name} sends SES v1 ${command}: map it to its IAM action in ${__filename}`);
  for (const [command, modules] of commandsSent(bundle, ['@aws-sdk/client-sesv2'])) {
    const identityAction = identityActionOf[command];
    if (identityAction) {
      actions.add(identityAction);
      continue;
    }
    if (command !== 'SendEmailCommand') throw new Error(`${name} sends ${command}: map it to its IAM action in ${__filename}`);
    for (const module of modules) {
      const contents = [...module.code.matchAll(/\b(Simple|Raw|Template)\s*:/g)].map((match) => match[1]);
      if (contents.length === 0) throw new Error(`${name}: no SendEmail content found in ${module.path}`);
      for (const content of contents) {
        // Simple content is authorized as ses:SendEmail; raw MIME content as ses:SendRawEmail.
        if (content === 'Simple') actions.add('ses:SendEmail');
        else if (content === 'Raw') actions.add('ses:SendRawEmail');
        else throw new Error(`${name}: map SendEmail's ${content} content to its IAM action in ${__filename}`);
      }
    }
  }
  return [...actions].sort();
}

const sorted = (values: Iterable<string>) => [...values].sort();

describe('least privilege', () => {
  const functions = [...httpFamilies, ...eventFunctionNames()];
  const uses = new Map(functions.map((name) => [name, tableUseOf(name)]));
  let synthesized: Synthesized;
  let tableArn: unknown;
  const indexArn = (index: string) => ({ 'Fn::Join': ['', [tableArn, `/index/${index}`]] });
  const resourcesOf = (statement: PolicyStatement): unknown[] => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]);

  beforeAll(() => {
    synthesized = synthesize({ senderDomain: 'mail.example.org' });
    tableArn = synthesized.stack.resolve(synthesized.stack.table.tableArn);
  });

  test('the bundles are read: what the code is known to do is found', () => {
    // The deliverer claims recipients in its ledger; contacts check their type in transactions;
    // the unauthenticated fallback touches no item at all; no function scans.
    expect(uses.get('send-deliver')?.actions).toEqual(expect.arrayContaining(['PutItem', 'GetItem', 'UpdateItem']));
    expect(uses.get('contacts')?.actions).toEqual(expect.arrayContaining(['ConditionCheckItem', 'Query']));
    expect(uses.get('contacts')?.indexes).toEqual(['gsi1']);
    expect(uses.get('fallback')).toEqual({ actions: [], indexes: [] });
    for (const [name, use] of uses) expect({ name, scans: use.actions.includes('Scan') }).toEqual({ name, scans: false });
  });

  test.each(functions)('%s declares exactly the table actions and indexes its code uses', (name) => {
    const needs = needsOf(name);
    expect({ name, actions: sorted(needs.table ?? []), indexes: sorted(needs.indexes ?? []) }).toEqual({ name, ...uses.get(name) });
  });

  test.each(functions)('%s is granted exactly those actions on the table, and Query only on the indexes it queries', (name) => {
    const use = uses.get(name) as TableUse;
    const granted = new Map<string, string[]>();
    for (const statement of statementsFor(synthesized, name, 'dynamodb:')) {
      expect(statement.Condition).toBeUndefined();
      for (const resource of resourcesOf(statement)) {
        const key = JSON.stringify(resource);
        granted.set(key, sorted([...(granted.get(key) ?? []), ...actionsOf(statement)]));
      }
    }
    const expected = new Map<string, string[]>();
    if (use.actions.length > 0) expected.set(JSON.stringify(tableArn), use.actions.map((action) => `dynamodb:${action}`));
    for (const index of use.indexes) expected.set(JSON.stringify(indexArn(index)), ['dynamodb:Query']);
    expect({ name, granted: Object.fromEntries(granted) }).toEqual({ name, granted: Object.fromEntries(expected) });
  });

  test('the public pages and the fallback, which answer without credentials, cannot batch-write, and the fallback cannot touch the table', () => {
    for (const name of ['public-pages', 'fallback']) {
      const actions = statementsFor(synthesized, name, 'dynamodb:').flatMap(actionsOf);
      expect({ name, batchWrites: actions.includes('dynamodb:BatchWriteItem') }).toEqual({ name, batchWrites: false });
    }
    expect(statementsFor(synthesized, 'fallback', 'dynamodb:')).toEqual([]);
  });

  test.each(functions)('%s is granted exactly the SES actions its mail content needs', (name) => {
    // A statement on '*' may carry X-Ray's actions too (CDK merges statements on one resource).
    const granted = statementsFor(synthesized, name, 'ses:').flatMap(actionsOf).filter((action) => action.startsWith('ses:'));
    expect({ name, granted: sorted(granted) }).toEqual({ name, granted: sesActionsOf(name) });
  });
});
