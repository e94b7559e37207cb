// Where signed AWS calls get their credentials. In Lambda the function's role credentials are in the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) and are refreshed with
// each new container, so the environment is the whole chain there. Command-line tools that run on an
// operator's machine (profiles, SSO) install a fuller source with `useCredentialSource`.

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type CredentialSource = () => Promise<Credentials>;

/** The fixed credentials local endpoints (DynamoDB Local, the SES sink) get: they want a signature, not a real key. */
export const localCredentials: Credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export const environmentCredentials: CredentialSource = () => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    return Promise.reject(new Error('No AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set'));
  }
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  return Promise.resolve({ accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) });
};

let source: CredentialSource = environmentCredentials;

/** Replace the credential source (operator tools with profiles or SSO); `undefined` restores the environment. */
export function useCredentialSource(next: CredentialSource | undefined): void {
  source = next ?? environmentCredentials;
}

export function credentials(): Promise<Credentials> {
  return source();
}
