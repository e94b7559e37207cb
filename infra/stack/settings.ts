// The deploy-time settings of the stack, read once from CDK context (`cdk.json` or `-c key=value`).
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';

export interface StackSettings {
  /** Names the stack and its resources, so several stages can live in one account. */
  stage: string;
  /** Only a throwaway stage may lose its data with the stack; production keeps the table. */
  allowDestroy: boolean;
  logRetention: RetentionDays;
  apiThrottle: { burstLimit: number; rateLimit: number };
}

export const defaultSettings: StackSettings = {
  stage: 'dev',
  allowDestroy: false,
  logRetention: RetentionDays.ONE_MONTH,
  apiThrottle: { burstLimit: 200, rateLimit: 100 },
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

/** The settings from the app's context, each falling back to `defaultSettings`. */
export function readSettings(node: Node): StackSettings {
  return {
    stage: stageContext(node),
    allowDestroy: booleanContext(node, 'allowDestroy', defaultSettings.allowDestroy),
    logRetention: logRetentionContext(node),
    apiThrottle: {
      burstLimit: positiveIntegerContext(node, 'apiThrottleBurst', defaultSettings.apiThrottle.burstLimit),
      rateLimit: positiveIntegerContext(node, 'apiThrottleRate', defaultSettings.apiThrottle.rateLimit),
    },
  };
}
