// Bundled into every Lambda in place of `@aws-sdk/credential-provider-node` (see lambda-bundling.ts):
// Lambda hands a function its role's credentials in environment variables, so of the SDK's default
// chain (env, SSO, INI files, process, web identity, container and instance metadata) only the
// first can ever answer there. The rest, with the STS/SSO clients it pulls in, is dead weight.
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The SDK clients call this as their default credential provider. */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
