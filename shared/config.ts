// The one place the environment is read: every setting a function or the local runtime needs, read
// once per container, with a clear error naming the variable when a required one is missing or a
// number is malformed. Other modules call `config()` or the readers below, never `process.env`.
import { standIn } from './aws-call-watch';

export type Runtime = 'aws' | 'local';

export interface Config {
  /** 'local' picks the local adapters (DynamoDB Local, the SES sink, the local scheduler and queue). */
  runtime: Runtime;
  region: string;
  tableName: string;
  /** Set only locally: DynamoDB Local's endpoint. */
  dynamoEndpoint: string | undefined;
  /** Set only locally: the SES sink's endpoint. */
  sesEndpoint: string | undefined;
  /** Set only locally: the directory the object-store port keeps each bucket's objects in (shared/object-store/). */
  objectStoreDirectory: string | undefined;
  /**
   * The bucket SES's delivery events are archived in by the delivery stream (infra/stack/ses-delivery-archive.ts);
   * ses-events reads objects of this bucket only.
   */
  sesEventBucket: string;
  /** How long an SES call may go without an answer before it is abandoned (its outcome is then unknown). */
  sesRequestTimeoutMs: number;
  /** The API root as clients see it, ending in `/api/`. */
  publicBaseUrl: string;
  /**
   * How long a resolved credential stays cached in the container, in milliseconds: a revoked key is
   * refused everywhere at most this long after its revocation. At most `maxCredentialCacheMs`.
   */
  credentialCacheMs: number;
  /** The token key, or a JSON key set for rotation (shared/signed-token.ts): seals the tokens in links and list cursors. */
  tokenSigningKey: string;
  /** The key, or a JSON key set for rotation (shared/key-set.ts), that webhook secrets are sealed with in the table (shared/webhooks/secret.ts). */
  webhookSecretKey: string;
  /** The address system mail (sender verification, send summaries) comes from. */
  systemFromEmail: string;
  /** Deployed: the SES custom verification email template a new sender address is mailed with (the stack creates it). */
  senderVerificationTemplate: string;
  /** A running send that has not progressed (no page fanned out, no batch settled) for this long is stalled. */
  sendStallMs: number;
  /** Resumes the watchdog tries on a stalled send before it ends the send as failed (status 4). */
  sendStallMaxResumes: number;
  /** Sender verification mails one account may have sent per clock hour (UTC), on save, address change and resend. */
  systemMailVerificationsPerHour: number;
  /** System mails of every kind (verification and send summaries) one account may have sent per clock hour (UTC). */
  systemMailsPerHour: number;
  /** Test mails (single send and automation step tests) one account may have sent per clock hour (UTC). */
  testMailsPerHour: number;
  /** Double opt-in confirmation mails per account and clock hour (UTC); past it they wait for the next hour. */
  optInMailsPerHour: number;
  /** Authenticated API requests one account may make per second, across all containers (more answer 429); undefined when off. */
  accountRateLimit: number | undefined;
  /** Requests one recipient link may make to the public pages per minute (more answer 429; the pixel just stops counting). */
  publicRateLimit: number;
  /** A send or automation whose hard bounces exceed this share of its mails (0.05 = 5%) pauses itself. */
  bouncePauseRate: number;
  /** The same for complaints (0.001 = 0.1%). */
  complaintPauseRate: number;
  /** Mails a send or automation must have handed to SES (since its last resume) before either rate can pause it. */
  pauseMinDeliveries: number;
}

/** Values loaded at run time from Secrets Manager (shared/secrets.ts); they win over the environment. */
export interface SecretValues {
  tokenSigningKey?: string;
  webhookSecretKey?: string;
}

const secretValues: SecretValues = {};

export function provideSecretValues(values: SecretValues): void {
  Object.assign(secretValues, values);
}

/** A variable's value; undefined when unset or empty. */
export function optionalEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A variable that must be set (deployment wiring: queue URLs, schedule targets, roles). */
export function requiredEnv(name: string): string {
  const value = optionalEnv(name);
  if (value === undefined) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

/** A positive number (an integer with `integer`), or the fallback when unset; malformed values are refused by name. */
export function positiveNumberEnv(name: string, fallback: number, { integer = false }: { integer?: boolean } = {}): number {
  const text = optionalEnv(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}, got '${text}'`);
  }
  return value;
}

/** The longest a container may keep a resolved credential (so a revoked key lives on at most a minute). */
export const maxCredentialCacheMs = 60_000;

function credentialCacheMs(): number {
  const value = positiveNumberEnv('CREDENTIAL_CACHE_MS', maxCredentialCacheMs, { integer: true });
  if (value > maxCredentialCacheMs) throw new Error(`CREDENTIAL_CACHE_MS must be at most ${maxCredentialCacheMs}, got '${value}'`);
  return value;
}

/** The local stand-in of the bucket SES's delivery events are archived in (infra/local/local-firehose.ts). */
export const localSesEventBucket = 'local-ses-delivery-events';

/** Requests per second per account: room for any integration, a small share of the stage's outer throttle. */
export const defaultAccountRateLimit = 50;
/** Requests per minute per recipient link: far more than a person clicks, little for a loop. */
export const defaultPublicRateLimit = 30;

const required = requiredEnv;
const optional = optionalEnv;

/**
 * A key that is a secret's value when deployed, as the local run has it: a test watching the AWS calls
 * sees which functions use it (the Lambda bundles keep the value alone).
 */
function localSecret(secretId: 'token-signing-key' | 'webhook-secret-key', key: string): string {
  return process.env.LAMBDA_BUNDLE !== 'true' ? standIn({ service: 'secretsmanager', operation: 'GetSecretValue', input: { SecretId: secretId } }, () => key) : key;
}

function readConfig(): Config {
  const runtime = (optional('APP_RUNTIME') ?? 'aws') as Runtime;
  if (runtime !== 'aws' && runtime !== 'local') {
    throw new Error(`APP_RUNTIME must be 'aws' or 'local', got '${runtime}'`);
  }
  return {
    runtime,
    region: optional('AWS_REGION') ?? 'us-east-1',
    tableName: required('TABLE_NAME'),
    dynamoEndpoint: optional('DYNAMODB_ENDPOINT'),
    sesEndpoint: optional('SES_ENDPOINT'),
    objectStoreDirectory: optional('OBJECT_STORE_DIR'),
    sesRequestTimeoutMs: positiveNumberEnv('SES_REQUEST_TIMEOUT_MS', 10_000, { integer: true }),
    publicBaseUrl: optional('PUBLIC_BASE_URL') ?? 'http://localhost:3000/api/',
    credentialCacheMs: credentialCacheMs(),
    sendStallMs: positiveNumberEnv('SEND_STALL_MINUTES', 15) * 60_000,
    sendStallMaxResumes: positiveNumberEnv('SEND_STALL_MAX_RESUMES', 3, { integer: true }),
    systemMailVerificationsPerHour: positiveNumberEnv('SYSTEM_MAIL_VERIFICATIONS_PER_HOUR', 5, { integer: true }),
    systemMailsPerHour: positiveNumberEnv('SYSTEM_MAILS_PER_HOUR', 50, { integer: true }),
    testMailsPerHour: positiveNumberEnv('TEST_MAILS_PER_HOUR', 50, { integer: true }),
    optInMailsPerHour: positiveNumberEnv('OPT_IN_MAILS_PER_HOUR', 1000, { integer: true }),
    // `off` serves a deployment that limits its callers elsewhere, and measures what the limit costs.
    accountRateLimit: optionalEnv('ACCOUNT_RATE_LIMIT') === 'off' ? undefined : positiveNumberEnv('ACCOUNT_RATE_LIMIT', defaultAccountRateLimit, { integer: true }),
    publicRateLimit: positiveNumberEnv('PUBLIC_RATE_LIMIT', defaultPublicRateLimit, { integer: true }),
    bouncePauseRate: positiveNumberEnv('BOUNCE_PAUSE_RATE', 0.05),
    complaintPauseRate: positiveNumberEnv('COMPLAINT_PAUSE_RATE', 0.001),
    pauseMinDeliveries: positiveNumberEnv('PAUSE_MIN_DELIVERIES', 100, { integer: true }),
    // Deployed, these must be set (the keys through their secrets, see shared/secrets.ts); they are read
    // on first use, so a function that never signs a link, opens a webhook secret or sends system mail
    // does not need them.
    // Locally, fixed development values keep links working across restarts without setup.
    get tokenSigningKey() {
      if (secretValues.tokenSigningKey) return secretValues.tokenSigningKey;
      if (runtime === 'aws') return required('TOKEN_SIGNING_KEY');
      return localSecret('token-signing-key', optional('TOKEN_SIGNING_KEY') ?? 'local-development-signing-key');
    },
    get webhookSecretKey() {
      if (secretValues.webhookSecretKey) return secretValues.webhookSecretKey;
      if (runtime === 'aws') return required('WEBHOOK_SECRET_KEY');
      return localSecret('webhook-secret-key', optional('WEBHOOK_SECRET_KEY') ?? 'local-development-webhook-secret-key');
    },
    get systemFromEmail() {
      return runtime === 'aws' ? required('SYSTEM_FROM_EMAIL') : (optional('SYSTEM_FROM_EMAIL') ?? 'no-reply@localhost');
    },
    get sesEventBucket() {
      return runtime === 'aws' ? required('SES_EVENT_BUCKET') : (optional('SES_EVENT_BUCKET') ?? localSesEventBucket);
    },
    get senderVerificationTemplate() {
      return runtime === 'aws' ? required('SENDER_VERIFICATION_TEMPLATE') : (optional('SENDER_VERIFICATION_TEMPLATE') ?? 'local-sender-verification');
    },
  };
}

let cached: Config | undefined;

/** The configuration, read from the environment on first use. */
export function config(): Config {
  cached ??= readConfig();
  return cached;
}

/** Forget the cached configuration (the local runtime and tests set the environment first). */
export function resetConfig(): void {
  cached = undefined;
}
