// The layering the code keeps, checked by `npm run lint` (dependency-cruiser resolves every import,
// type imports included). Each first-level folder of shared/ sits in one layer and imports only its
// own layer's folders or the layers below it; no two folders import each other, even through others:
//   functions/<family>            handlers: parse, call, answer
//   shared/http, shared/auth      the request pipeline
//   capabilities                  work that spans entities: delivery, orchestration, feedback, ...
//   entities                      one folder per entity: keys, record, repository, pure rules
//   foundation                    table primitives, validation, rendering, ports (queue, scheduler, object store,
//                                 mail), configuration, logging, time, tokens, errors
// A repository never triggers sending, enrolment, scheduling or queueing: entity folders cannot
// import the ports that act (queue, scheduling, mail); capabilities call them.

/** Foundation folders of shared/ (the root files of shared/ are foundation too). */
const foundation = '(table|validation|rendering|csv|queue|scheduling|mail|object-store)';

/** Entity folders: keys, record shapes, repositories and domain rules. */
const entities = '(accounts|contacts|contact-types|custom-fields|segments|suppressions|notification-recipients|senders|templates|single-sends|automations|reference-data|webhooks|identities|tenants|jobs|idempotency|system-mail|rate-limits|ledger)';

/** Capability folders: use cases that span entities and call the ports. */
const capabilities = '(delivery|public-links|statistics|send-gates|single-send-runs|automation-runs|feedback|test-sends|audience|sender-verification|tenancy|webhook-delivery|background-jobs)';

/** The request pipeline, above every capability. */
const pipeline = '(http|auth)';

module.exports = {
  forbidden: [
    {
      name: 'folders-one-way',
      comment: 'No cycle between the folders of shared/: each first-level folder is one node, and every import (type imports too) an arrow.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^shared/' },
      to: { circular: true },
    },
    {
      name: 'every-folder-has-a-layer',
      comment: 'A new folder of shared/ is placed in one of the layers above, so the rules below cover it.',
      severity: 'error',
      from: { path: '^shared/[^/]+/', pathNot: `^shared/(${foundation.slice(1, -1)}|${entities.slice(1, -1)}|${capabilities.slice(1, -1)}|${pipeline.slice(1, -1)})/` },
      to: {},
    },
    {
      name: 'foundation-knows-no-entity',
      comment: 'Foundation folders import only the foundation.',
      severity: 'error',
      from: { path: `^shared/${foundation}/` },
      to: { path: `^shared/(${entities.slice(1, -1)}|${capabilities.slice(1, -1)}|${pipeline.slice(1, -1)})/` },
    },
    {
      name: 'entities-never-act',
      comment: 'An entity folder imports the foundation and other entities, never a capability, the pipeline, or a port that acts (queue, scheduler, mail).',
      severity: 'error',
      from: { path: `^shared/${entities}/` },
      to: { path: `^shared/(${capabilities.slice(1, -1)}|${pipeline.slice(1, -1)}|queue|scheduling|mail)/` },
    },
    {
      name: 'capabilities-below-the-pipeline',
      comment: 'Capabilities never import the request pipeline: handlers turn their results and errors into answers.',
      severity: 'error',
      from: { path: `^shared/${capabilities}/` },
      to: { path: `^shared/${pipeline}/` },
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
      comment: 'Configuration, logging, metrics, time, tracing, AWS clients, secrets, key sets, tokens and the error vocabulary import nothing of the service.',
      severity: 'error',
      from: { path: '^shared/(config|log|metrics|time|tracing|tracing-lambda|aws-clients|aws-call-watch|secrets|signed-token|key-set|errors)\\.ts$' },
      to: { path: '^shared/', pathNot: '^shared/(config|log|metrics|time|tracing|tracing-lambda|aws-clients|aws-call-watch|secrets|signed-token|key-set|errors)\\.ts$' },
    },
    {
      name: 'http-errors-stay-in-the-pipeline',
      comment: 'Only the request pipeline throws HTTP errors; everything else throws the vocabulary of shared/errors.ts, and an operation registers how its own errors are answered.',
      severity: 'error',
      from: { pathNot: '^shared/http/' },
      to: { path: '^shared/http/errors\\.ts$' },
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
