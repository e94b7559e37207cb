// X-Ray: in a trace-enabled Lambda every AWS client the service builds carries the X-Ray capture
// middleware, and outside Lambda (tests, npm start) the tracer stays off and adds nothing.

type ClientGetter = () => { middlewareStack: { identify(): string[] } };

type Client = ReturnType<ClientGetter>;

/** Every client, built in a fresh module registry; `onXRayLoad` is told when the X-Ray SDK is loaded. */
function buildClients(onXRayLoad: () => void = () => undefined): Record<string, Client> {
  let clients: Record<string, Client> = {};
  jest.isolateModules(() => {
    jest.doMock('aws-xray-sdk-core', () => {
      onXRayLoad();
      return jest.requireActual('aws-xray-sdk-core');
    });
    /* eslint-disable @typescript-eslint/no-require-imports -- a fresh module registry per environment */
    const getters: Record<string, ClientGetter> = {
      dynamodb: require('../../shared/table/client').db,
      sesv2: require('../../shared/mail/mailer').sesClient,
      sqs: require('../../shared/queue/aws-queue').sqsClient,
      scheduler: require('../../shared/scheduling/aws-scheduler').schedulerClient,
      secretsManager: require('../../shared/secrets').secretsManagerClient,
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
    clients = Object.fromEntries(Object.entries(getters).map(([name, getter]) => [name, getter()]));
  });
  return clients;
}

const captured = (client: Client) => client.middlewareStack.identify().some((entry) => entry.startsWith('XRaySDKInstrumentation'));

describe('AWS clients and X-Ray', () => {
  const saved = { ...process.env };

  beforeEach(() => {
    Object.assign(process.env, { TABLE_NAME: 'traced', AWS_REGION: 'eu-west-1', APP_RUNTIME: 'aws' });
  });

  afterEach(() => {
    process.env = { ...saved };
  });

  test('in a trace-enabled Lambda every client is captured', () => {
    Object.assign(process.env, { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x', _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1' });

    const clients = buildClients();

    expect(Object.fromEntries(Object.entries(clients).map(([name, client]) => [name, captured(client)]))).toEqual({
      dynamodb: true,
      sesv2: true,
      sqs: true,
      scheduler: true,
      secretsManager: true,
    });
  });

  test('outside Lambda the tracer is off and no client is wrapped', () => {
    delete process.env.AWS_EXECUTION_ENV;

    const clients = buildClients();

    expect(Object.values(clients).map(captured)).toEqual([false, false, false, false, false]);
  });

  test('outside Lambda the X-Ray SDK is never loaded: its async hooks would tax every promise', () => {
    delete process.env.AWS_EXECUTION_ENV;
    let loaded = false;

    buildClients(() => (loaded = true));

    expect(loaded).toBe(false);
  });

  test('in Lambda the X-Ray SDK is loaded with the service', () => {
    Object.assign(process.env, { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' });
    let loaded = false;

    buildClients(() => (loaded = true));

    expect(loaded).toBe(true);
  });
});
