// The deploy-time settings of the stack, read once from CDK context (`cdk.json` or `-c key=value`).
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { defaultClientLimit, minClientLimit } from '../public-links';
import { defaultAccountRateLimit } from '../../shared/config';
import { defaultDispatchReservation, httpReservationFor, minimumUnreservedConcurrency, sesEventsReservationFor, stageThrottleFor, stepRunnerReservation } from './concurrency';

export interface StackSettings {
  /** Names the stack and its resources, so several stages can live in one account. */
  stage: string;
  /** Only a throwaway stage may lose its data with the stack; production keeps the table. */
  allowDestroy: boolean;
  logRetention: RetentionDays;
  /** The stage throttle; unset, sized from the account request limit and the SES rate (concurrency.ts). */
  apiThrottle: { burstLimit: number; rateLimit: number };
  /** Requests one client address may make to the public links' REST API per minute (its WAF rate rule). */
  publicClientLimit: number;
  /**
   * The throttle of each public-link route left on the HTTP API for links in mail sent before the
   * REST API existed: a flood there throttles that route alone.
   */
  oldLinkThrottle: { burstLimit: number; rateLimit: number };
  /**
   * Reserved concurrency (0: none) of each HTTP function, of ses-events and of the dispatcher, so a
   * flood elsewhere in the account never leaves them without containers. A reservation is also the
   * function's ceiling.
   */
  reservedConcurrency: { http: number; sesEvents: number; dispatch: number };
  /** The account's Lambda concurrency quota (1,000 by default): the reservations must leave 100 of it unreserved. */
  lambdaConcurrencyQuota: number;
  /** The account's SES maximum send rate (mails per second); the delivery function stays under it. */
  sesMaxSendRate: number;
  /**
   * SES control-plane calls a second for this stage (SES_CONTROL_RATE): identities, custom verification
   * mail, tenants. Unset keeps SES's documented 1; stages sharing an AWS account and region split it.
   */
  sesControlRate?: number;
  /** Delivery containers at most (the SQS event source's maximum concurrency; Lambda's minimum is 2). */
  deliveryConcurrency: number;
  /** The domain mail is sent from: the stack creates its SES identity (DKIM records to publish). */
  senderDomain: string;
  /** The From address of system mail (sender confirmation, send summaries). */
  systemFromEmail: string;
  /** Where alarm notifications go; without it the alarm topic has no subscriber. */
  alarmEmail: string | undefined;
  /** Browser origins allowed to call the API; CORS stays off without them (the API is server to server). */
  corsOrigins: string[];
  /** Requests per second per account (ACCOUNT_RATE_LIMIT of the HTTP functions); unset keeps shared/config.ts's default. */
  accountRateLimit?: number;
  /** Requests per minute per recipient link on the public pages (PUBLIC_RATE_LIMIT); unset keeps the default. */
  publicRateLimit?: number;
  /**
   * When a single send or automation pauses itself (shared/feedback/reputation.ts): its bounce and
   * complaint rates (fractions) and the mails SES must have reported on first. Unset keeps 5%, 0.1%, 100.
   */
  bouncePauseRate?: number;
  complaintPauseRate?: number;
  pauseMinDeliveries?: number;
}

// SES's starting quota out of the sandbox; raise it with the quota (see the README runbook).
const startingSesRate = 14;
const defaultThrottle = stageThrottleFor(defaultAccountRateLimit, startingSesRate);

export const defaultSettings: StackSettings = {
  stage: 'dev',
  allowDestroy: false,
  logRetention: RetentionDays.ONE_MONTH,
  apiThrottle: defaultThrottle,
  publicClientLimit: defaultClientLimit,
  oldLinkThrottle: { burstLimit: 100, rateLimit: 50 },
  reservedConcurrency: {
    http: httpReservationFor(defaultThrottle.rateLimit),
    sesEvents: sesEventsReservationFor(startingSesRate),
    dispatch: defaultDispatchReservation,
  },
  lambdaConcurrencyQuota: 1000,
  // SES's starting quota out of the sandbox; raise it with the quota (see the README runbook).
  sesMaxSendRate: startingSesRate,
  deliveryConcurrency: 2,
  senderDomain: 'example.com',
  systemFromEmail: 'no-reply@example.com',
  alarmEmail: undefined,
  corsOrigins: [],
};

// `-c key=value` always arrives as a string while cdk.json gives JSON types, so accept both.
function booleanContext(node: Node, key: string, fallback: boolean): boolean {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`Context ${key} must be true or false, got ${JSON.stringify(value)}`);
}

function positiveIntegerContext(node: Node, key: string, fallback: number): number {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined) return fallback;
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isInteger(parsed) || parsed <= 0) {
    throw new Error(`Context ${key} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

function clientLimitContext(node: Node): number {
  const limit = positiveIntegerContext(node, 'publicClientLimit', defaultSettings.publicClientLimit);
  // WAF's bounds of a rate-based rule's limit.
  if (limit < minClientLimit || limit > 2_000_000_000) throw new Error(`Context publicClientLimit must be between ${minClientLimit} and 2000000000, got ${limit}`);
  return limit;
}

/** 0 or more: a reservation of 0 means none. */
function countContext(node: Node, key: string, fallback: number): number {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined) return fallback;
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isInteger(parsed) || parsed < 0) {
    throw new Error(`Context ${key} must be 0 or a positive integer, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

function optionalPositiveIntegerContext(node: Node, key: string): number | undefined {
  return node.tryGetContext(key) === undefined ? undefined : positiveIntegerContext(node, key, 1);
}

function stageContext(node: Node): string {
  const value: unknown = node.tryGetContext('stage') ?? defaultSettings.stage;
  // The stage goes into the stack name, which CloudFormation limits to letters, digits and hyphens.
  if (typeof value !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(value)) {
    throw new Error(`Context stage must be lower-case letters, digits and hyphens, got ${JSON.stringify(value)}`);
  }
  return value;
}

function logRetentionContext(node: Node): RetentionDays {
  const days = positiveIntegerContext(node, 'logRetentionDays', defaultSettings.logRetention);
  // CloudWatch Logs accepts only its fixed list of periods; fail at synth rather than at deploy.
  const allowed = Object.values(RetentionDays).filter((period): period is RetentionDays => typeof period === 'number');
  const retention = allowed.find((period) => period === days);
  if (retention === undefined) {
    throw new Error(`Context logRetentionDays must be one of ${allowed.join(', ')}, got ${days}`);
  }
  return retention;
}

function positiveNumberContext(node: Node, key: string, fallback: number): number {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined) return fallback;
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed <= 0) {
    throw new Error(`Context ${key} must be a positive number, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

/** A rate as a fraction: above 0 and at most 1 (0.05 is 5%). */
function optionalFractionContext(node: Node, key: string): number | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined) return undefined;
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || !(parsed > 0 && parsed <= 1)) {
    throw new Error(`Context ${key} must be a fraction above 0 and at most 1 (0.05 is 5%), got ${JSON.stringify(value)}`);
  }
  return parsed;
}

function optionalStringContext(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`Context ${key} must be a string, got ${JSON.stringify(value)}`);
  return value.trim();
}

const domainPattern = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const addressPattern = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

function senderDomainContext(node: Node): string {
  const domain = (optionalStringContext(node, 'senderDomain') ?? defaultSettings.senderDomain).toLowerCase();
  if (!domainPattern.test(domain)) throw new Error(`Context senderDomain must be a domain name, got ${JSON.stringify(domain)}`);
  return domain;
}

function addressContext(node: Node, key: string): string | undefined {
  const address = optionalStringContext(node, key);
  if (address !== undefined && !addressPattern.test(address)) throw new Error(`Context ${key} must be an email address, got ${JSON.stringify(address)}`);
  return address;
}

function deliveryConcurrencyContext(node: Node): number {
  const concurrency = positiveIntegerContext(node, 'deliveryConcurrency', defaultSettings.deliveryConcurrency);
  // The bounds of an SQS event source mapping's maximum concurrency.
  if (concurrency < 2 || concurrency > 1000) throw new Error(`Context deliveryConcurrency must be between 2 and 1000, got ${concurrency}`);
  return concurrency;
}

function corsOriginsContext(node: Node): string[] {
  const text = optionalStringContext(node, 'corsOrigins');
  if (text === undefined) return [];
  const origins = text.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) throw new Error(`Context corsOrigins must list origins like https://app.example.com, got ${JSON.stringify(origin)}`);
  }
  return origins;
}

/** Reserved concurrency of the stage's functions in all, including the step runner's one. */
export function reservedInAll(reserved: StackSettings['reservedConcurrency'], httpFunctions: number): number {
  return reserved.http * httpFunctions + reserved.sesEvents + reserved.dispatch + stepRunnerReservation;
}

function reservedConcurrencyContext(node: Node, rateLimit: number, sesMaxSendRate: number): StackSettings['reservedConcurrency'] {
  return {
    http: countContext(node, 'httpReservedConcurrency', httpReservationFor(rateLimit)),
    sesEvents: countContext(node, 'sesEventsReservedConcurrency', sesEventsReservationFor(sesMaxSendRate)),
    dispatch: countContext(node, 'dispatchReservedConcurrency', defaultDispatchReservation),
  };
}

/**
 * Lambda refuses a reservation that leaves the account under 100 unreserved, and CloudFormation rolls
 * the deploy back on it: refuse at synth instead, naming the settings.
 */
export function checkReservations(settings: StackSettings, httpFunctions: number): void {
  const reserved = reservedInAll(settings.reservedConcurrency, httpFunctions);
  const allowed = settings.lambdaConcurrencyQuota - minimumUnreservedConcurrency;
  if (reserved > allowed) {
    throw new Error(
      `The stage reserves ${reserved} of the account's Lambda concurrency (httpReservedConcurrency x ${httpFunctions} HTTP functions, ` +
        `sesEventsReservedConcurrency, dispatchReservedConcurrency and the step runner's 1), but a quota of ${settings.lambdaConcurrencyQuota} ` +
        `(lambdaConcurrencyQuota) allows ${allowed}: lower them (0 reserves none) or raise the quota`,
    );
  }
}

/** The settings from the app's context, each falling back to `defaultSettings`. */
export function readSettings(node: Node): StackSettings {
  const senderDomain = senderDomainContext(node);
  const sesMaxSendRate = positiveNumberContext(node, 'sesMaxSendRate', defaultSettings.sesMaxSendRate);
  const accountRateLimit = optionalPositiveIntegerContext(node, 'accountRateLimit');
  const neededThrottle = stageThrottleFor(accountRateLimit ?? defaultAccountRateLimit, sesMaxSendRate);
  const rateLimit = positiveIntegerContext(node, 'apiThrottleRate', neededThrottle.rateLimit);
  return {
    stage: stageContext(node),
    allowDestroy: booleanContext(node, 'allowDestroy', defaultSettings.allowDestroy),
    logRetention: logRetentionContext(node),
    // A rate given alone keeps a burst of one second of it.
    apiThrottle: { burstLimit: positiveIntegerContext(node, 'apiThrottleBurst', rateLimit), rateLimit },
    publicClientLimit: clientLimitContext(node),
    oldLinkThrottle: {
      burstLimit: positiveIntegerContext(node, 'oldLinkThrottleBurst', defaultSettings.oldLinkThrottle.burstLimit),
      rateLimit: positiveIntegerContext(node, 'oldLinkThrottleRate', defaultSettings.oldLinkThrottle.rateLimit),
    },
    reservedConcurrency: reservedConcurrencyContext(node, rateLimit, sesMaxSendRate),
    lambdaConcurrencyQuota: positiveIntegerContext(node, 'lambdaConcurrencyQuota', defaultSettings.lambdaConcurrencyQuota),
    sesMaxSendRate,
    ...(node.tryGetContext('sesControlRate') === undefined ? {} : { sesControlRate: positiveNumberContext(node, 'sesControlRate', 1) }),
    deliveryConcurrency: deliveryConcurrencyContext(node),
    senderDomain,
    systemFromEmail: addressContext(node, 'systemFromEmail') ?? `no-reply@${senderDomain}`,
    alarmEmail: addressContext(node, 'alarmEmail'),
    corsOrigins: corsOriginsContext(node),
    accountRateLimit,
    publicRateLimit: optionalPositiveIntegerContext(node, 'publicRateLimit'),
    bouncePauseRate: optionalFractionContext(node, 'bouncePauseRate'),
    complaintPauseRate: optionalFractionContext(node, 'complaintPauseRate'),
    pauseMinDeliveries: optionalPositiveIntegerContext(node, 'pauseMinDeliveries'),
  };
}
