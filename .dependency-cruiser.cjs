// The layering the code keeps, checked by `npm run lint` (dependency-cruiser resolves every import):
//   handlers (functions/<family>) -> application services -> entity repositories -> table primitives
// with the foundation (configuration, logging, time, tracing, AWS clients, tokens) beneath them all.
// A repository never triggers sending, enrolment, scheduling or queueing: only services do.

/** The entity folders: keys, record shapes, repositories and domain rules. */
const entities = '(accounts|contacts|contact-types|custom-fields|segments|suppressions|notification-recipients|senders|templates|single-sends|automations|reference-data|webhooks|identities|tenants)';

/** Application services inside entity folders: use cases that call across entities and ports. */
const services = `^shared/${entities}/([a-z-]+-service|import-job|import-queue|runner|going-live|members|step-content|events|delivery|delivery-queue)\\.ts$`;

/** The service layer outside entity folders: delivery, the ports that act (scheduler, queue, mail), the HTTP pipeline. */
const actingModules = '^shared/(sending|scheduling|queue|mail|http|auth)/';

/**
 * What a repository may still read from those folders: their keys, and the error vocabulary (input
 * rules in entity folders refuse bad input with ValidationError, a leaf module that imports nothing).
 */
const readableOfActing = '^shared/((sending|scheduling)/keys|http/errors)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'repositories-have-no-side-effects',
      comment: 'An entity repository or domain module never calls a service, the delivery pipeline, the scheduler, the queue, mail or HTTP: services call them.',
      severity: 'error',
      from: { path: `^shared/${entities}/`, pathNot: services },
      to: { path: [services, actingModules], pathNot: readableOfActing },
    },
    {
      name: 'table-primitives-know-no-entity',
      comment: 'shared/table holds the table primitives only; it imports nothing above the foundation.',
      severity: 'error',
      from: { path: '^shared/table/' },
      to: { path: '^shared/', pathNot: '^shared/(table/|config\\.ts|time\\.ts|signed-token\\.ts|aws-clients\\.ts|aws-call-watch\\.ts|tracing\\.ts|log\\.ts)' },
    },
    {
      name: 'foundation-is-the-bottom',
      comment: 'Configuration, logging, metrics, time, tracing, AWS clients, secrets, key sets and tokens import nothing of the service.',
      severity: 'error',
      from: { path: '^shared/(config|log|metrics|time|tracing|tracing-lambda|aws-clients|aws-call-watch|secrets|signed-token|key-set)\\.ts$' },
      to: { path: '^shared/', pathNot: '^shared/(config|log|metrics|time|tracing|tracing-lambda|aws-clients|aws-call-watch|secrets|signed-token|key-set)\\.ts$' },
    },
    {
      name: 'shared-never-imports-handlers-or-infra',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(functions|infra|bench|test)/' },
    },
    {
      name: 'handlers-are-independent',
      comment: 'A function imports shared/, never another function.',
      severity: 'error',
      from: { path: '^functions/([^/]+)/' },
      to: { path: '^functions/', pathNot: '^functions/$1/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^(shared|functions)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|\\.data)' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
