// cdk.json's context (the feature flags), for apps built outside the CDK CLI, such as the infra tests,
// so they synthesize the same template `cdk synth` does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson: unknown = JSON.parse(readFileSync(join(__dirname, '..', '..', 'cdk.json'), 'utf8'));
  if (typeof cdkJson !== 'object' || cdkJson === null || !('context' in cdkJson)) return {};
  const { context } = cdkJson;
  return typeof context === 'object' && context !== null ? { ...context } : {};
}
