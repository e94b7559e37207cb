// The needs in infra/stack/function-needs.ts match the code: a function whose imports reach a port
// (SES, system mail, the scheduler, a queue) is granted it, and one granted it reaches it, so IAM
// stays least-privilege as the code changes.
import { buildSync } from 'esbuild';
import { functionNeeds, needsOf, type FunctionNeeds } from '../../infra/stack/function-needs';
import { repositoryHandlers } from '../../infra/stack/lambda-bundling';
import { eventFunctionNames } from '../../infra/stack/service-functions';
import { httpFamilies } from '../../shared/routes';

/** The repository module each need is the gateway of. */
const gateways: Record<'mail' | 'accountMail' | 'schedules' | 'cancelsSchedules' | 'enqueue' | 'systemMail' | 'identities' | 'identityCount' | 'suppressionList' | 'webhookKey' | 'sesEventArchive', RegExp> = {
  mail: /^shared\/mail\/mailer\.ts$/,
  // Where an account's mail gets its From: the account's sender (recipientMail, and the double opt-in
  // confirmation mail from its type's opt-in sender).
  accountMail: /^shared\/(delivery\/recipient-mail|audience\/opt-in-mailer)\.ts$/,
  identities: /^shared\/identities\/ses-identities\.ts$/,
  identityCount: /^shared\/identities\/identity-count\.ts$/,
  suppressionList: /^shared\/mail\/suppression-list\.ts$/,
  schedules: /^shared\/scheduling\/aws-scheduler\.ts$/,
  // The modules that cancel a job (`cancel` of shared/scheduling/scheduler.ts): every other scheduler books only.
  cancelsSchedules: /^(shared\/single-send-runs\/stall-watchdog|functions\/single-sends\/dispatch-schedule)\.ts$/,
  enqueue: /^shared\/queue\/aws-queue\.ts$/,
  systemMail: /^(shared\/(single-send-runs\/send-summary|feedback\/reputation-notice)|functions\/senders\/verification)\.ts$/,
  webhookKey: /^shared\/webhooks\/secret\.ts$/,
  sesEventArchive: /^shared\/object-store\/s3-object-store\.ts$/,
};

// Imports that reach a gateway without calling it (none at present: ses-events, which once reached the
// mailer only for the name of the SES tag, now mails the notice of a send it pauses).
const reachedButUnused: Record<string, (keyof typeof gateways)[]> = {};

/** The repository files a function's bundle is made of (packages left out: only our imports matter). */
function repositoryModules(name: string): string[] {
  const result = buildSync({
    entryPoints: [repositoryHandlers.entryFor(name)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    packages: 'external',
    absWorkingDir: repositoryHandlers.projectRoot,
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs);
}

const granted = (needs: FunctionNeeds, need: keyof typeof gateways): boolean =>
  need === 'enqueue' ? (needs.enqueue ?? []).length > 0 : needs[need] === true;

describe('function needs', () => {
  const functions = [...httpFamilies, ...eventFunctionNames()];

  test('name only functions that exist', () => {
    for (const name of Object.keys(functionNeeds)) {
      expect(functions).toContain(name);
    }
  });

  test.each(functions)('%s reaches the token signer exactly when it is given the key', (name) => {
    expect({ name, reached: repositoryModules(name).includes('shared/signed-token.ts') }).toEqual({ name, reached: needsOf(name).signingKey !== false });
  });

  test.each(functions)('%s is granted exactly what its imports reach', (name) => {
    const modules = repositoryModules(name);
    for (const need of Object.keys(gateways) as (keyof typeof gateways)[]) {
      const reached = modules.some((path) => gateways[need].test(path));
      const excused = reachedButUnused[name]?.includes(need) ?? false;
      expect({ need, granted: granted(needsOf(name), need) }).toEqual({ need, granted: reached && !excused });
    }
  });
});
