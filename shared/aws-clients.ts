// The official AWS SDK v3 clients, one per service and container, each built on first use from the
// configuration and captured by the tracer. A client is rebuilt when the configuration is re-read
// (the local runtime and tests point it at another endpoint), so no caller keeps a stale endpoint.
import { awsCallWatcher } from './aws-call-watch';
import { config, type Config } from './config';
import { traceClient } from './tracing';

interface SdkClient {
  destroy(): void;
}

/** A lazily built client for the current configuration. */
export function awsClient<Client extends SdkClient>(create: (settings: Config) => Client): () => Client {
  let client: Client | undefined;
  let builtFor: Config | undefined;
  return () => {
    const settings = config();
    if (!client || builtFor !== settings) {
      client?.destroy();
      client = traceClient(create(settings));
      // A test watching the functions' AWS calls adds its middleware (never in a Lambda bundle: see aws-call-watch.ts).
      if (process.env.LAMBDA_BUNDLE !== 'true') awsCallWatcher()?.clientBuilt(client);
      builtFor = settings;
    }
    return client;
  };
}

/**
 * Client options for a local emulator (DynamoDB Local, the SES sink), or none for AWS. Emulators
 * accept any signature but want one, so they get fixed credentials instead of the default chain.
 */
export function localEndpoint(endpoint: string | undefined): { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } } {
  return endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {};
}
