// Bundled into every Lambda in place of `@aws-sdk/credential-provider-node` (see lambda-bundling.ts).
// Lambda hands a function its role's credentials in environment variables and refreshes them with
// each new container, so of the SDK's default chain (environment, SSO, INI files, credential_process,
// web identity, container and instance metadata) only the first can ever answer there; the rest, with
// the STS and SSO clients it pulls in, is ~95 KB of dead weight per function. This is the SDK's own
// environment provider, not a credential source of ours. Outside a bundle (tests, `npm start`, the
// operator's scripts) the full chain is in use.
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The SDK clients call this as their default credential provider. */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
