// How large a function's bundle may be: one limit for every function, and the few over it with the
// reason each is. The bundle test (test/infra/bundles.test.ts) holds every bundle the stack builds to
// them, and the bench's cold-start scenario (bench/scenarios/cold-start.ts) reports against them.

/**
 * The limit: 480 KB per minified bundle, for every function, with the SDK clients inside. It was 450 KB
 * until every HTTP bundle took Idempotency-Key handling and the deploy-true guards (about 3 KB each) with
 * the largest bundles already within 1 KB of it; then 470 KB until the contacts family took engagement
 * segments (a new contact is judged on its address's opens and clicks) and the contact's activity route
 * (about 8 KB together). The SDK's own share (@smithy/core alone, 131 KB) is what a bundle cannot shed.
 */
export const bundleTargetBytes = 480 * 1024;

/**
 * The two functions over it. single-sends starts a send made now by invoking the dispatcher itself
 * (shared/scheduling/start-now.ts: a schedule due now fires 5 to 65 s later, EventBridge Scheduler's
 * one-minute precision), and so carries the Lambda client: 73 KB more (445 -> 516 KB), about 6.5 ms
 * more to load cold (35 -> 41 ms measured), on a family whose cold starts are few beside its sends'
 * minute saved. ses-events reads the delivery stream's objects of SES delivery events
 * (shared/object-store/) with the S3 client, about 147 KB of its 622 KB that no bundle can shed (the
 * schema of every S3 operation in one module, 66 KB; the XML protocol; checksums). Its cold starts are
 * few (a handful of containers kept warm by batches every few seconds) and on no request's path.
 */
export const ownBundleLimits: Readonly<Record<string, number>> = { 'single-sends': 530 * 1024, 'ses-events': 640 * 1024 };

/** The most a function's bundle may weigh, in bytes. */
export function bundleLimitBytes(name: string): number {
  return ownBundleLimits[name] ?? bundleTargetBytes;
}
