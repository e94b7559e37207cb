// `npm run bench`: starts the whole local stack in this process (free ports, a temporary DATA_DIR,
// quiet), runs the scenarios of issue 7, prints a table and writes JSON to bench/results/<ISO>.json
// and bench/results/latest.json. Every figure is measured by the harness; nothing is hand-timed.
//
// Scenarios (`npm run bench -- --only cold-start` or BENCH_SCENARIOS=1,2,3,4,5 selects, by number or
// by file name in bench/scenarios/; sizes by env, defaults sized for a 2-core machine):
//   1 API latency p50/p99 and req/s, list + create, autocannon on loopback
//       BENCH_API_SECONDS (10), BENCH_API_CONNECTIONS (10)
//   2 DynamoDB round trips per operation, counted by middleware on the document client
//   3 bundle size (as deployed: esbuild, minified, SDK clients bundled, the X-Ray SDK in the tracing
//     layer) and cold import+init (median of fresh processes) beside a bare-SDK baseline per function
//       BENCH_COLD_RUNS (20), BENCH_COLD_BEFORE (a checkout of an earlier commit to compare with)
//   4 bench/single-send-10k.ts (at two sizes, to show memory flat; BENCH_SEND_RUNS sends each, their
//     medians) and bench/automation-steps.ts as child processes; each send beside the store's
//     conditional-put rate, the sink's rate and the ledger's own claim and mark, as a share of its ceiling
//       BENCH_SEND_RECIPIENTS (2000), BENCH_SEND_RECIPIENTS_LARGE (8000), BENCH_SEND_RUNS (3),
//       BENCH_LIMIT_PUTS (4000), BENCH_STEP_ENROLMENTS (2000)
//   5 CSV import rows/s through contacts/upload-csv + contacts/import-status, beside the store's
//     transaction rate measured around it
//       BENCH_CSV_ROWS (5000)
//   6 render CPU per KB, a normal design beside adversarial ones of the same size
//   7 DynamoDB items a send's audience reads per recipient, type and segment
//       BENCH_READ_COST_RECIPIENTS (20000)
//   8 DynamoDB capacity of a single send with a 300 KB design (bench/send-capacity.ts, a child
//     process): write units per mail in all and on its busiest item, reads of the design
//       BENCH_CAPACITY_RECIPIENTS (1000)
//   9 bulk JSON upsert contacts/s through contacts/bulk-upsert + jobs/details, over the CSV import's
//     rows/s of the same run (selecting 9 runs 5 first)
//       BENCH_UPSERT_CONTACTS (10000)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { startLocalStack, type LocalStack } from '../infra/local/local-stack';
import { Api } from './lib/api';
import { details, log, notDone, printTable, root, round, rows, settings } from './lib/report';
import { scenarioApiLatency } from './scenarios/api-latency';
import { scenarioBulkUpsert } from './scenarios/bulk-upsert';
import { scenarioColdStart } from './scenarios/cold-start';
import { scenarioCsvImport } from './scenarios/csv-import';
import { scenarioReadCost } from './scenarios/read-cost';
import { scenarioRender } from './scenarios/render';
import { scenarioRoundTrips } from './scenarios/round-trips';
import { scenarioSendCapacity } from './scenarios/send-capacity';
import { scenarioSendScripts } from './scenarios/send-scripts';

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  // The load scenarios drive one account as fast as the machine allows: the per-account limit is set
  // above that, so they measure the service (each request still writes its counter) and not 429s.
  process.env.ACCOUNT_RATE_LIMIT ??= '1000000';
  const startedAt = new Date();
  const started = performance.now();
  const want = (n: number) => settings.scenarios.includes(n);
  const failures: Record<string, string> = {};
  const attempt = async (name: string, run: () => Promise<void>) => {
    const t = performance.now();
    try {
      await run();
    } catch (error) {
      failures[name] = (error as Error).stack ?? String(error);
      notDone.push(`${name} (failed: ${(error as Error).message.slice(0, 200)})`);
      log(`${name} FAILED: ${(error as Error).message}`);
    }
    (details.scenario_seconds ??= {} as Record<string, number>);
    (details.scenario_seconds as Record<string, number>)[name] = round((performance.now() - t) / 1000);
  };

  if (want(1) || want(2) || want(5) || want(7) || want(9)) {
    const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-'));
    let stack: LocalStack | undefined;
    try {
      log('starting the local stack');
      // The scheduler poller is slowed so its polls do not add DynamoDB calls to the counted ones.
      stack = await startLocalStack({ port: 0, dynamoPort: 0, sesPort: 0, quiet: true, log: () => undefined, dataDir, inMemory: true, scheduler: { intervalMs: 3_600_000 } });
      details.stack_ready_ms = round(stack.readyMs);
      const api = new Api(stack.urls.api.replace('localhost', '127.0.0.1'), { PublicKey: stack.demoAccount.public_key, SecretKey: stack.demoAccount.secret_key });
      // Round trips first, on a near-empty account; then the load; then the import.
      if (want(2)) await attempt('2 DynamoDB round trips', () => scenarioRoundTrips(api));
      if (want(1)) await attempt('1 API latency', () => scenarioApiLatency(api));
      // The upsert's rate is measured against the import's of the same run.
      if (want(5) || want(9)) await attempt('5 CSV import', () => scenarioCsvImport(api));
      if (want(9)) await attempt('9 bulk upsert', () => scenarioBulkUpsert(api));
      if (want(7)) await attempt('7 send read cost', scenarioReadCost);
    } finally {
      await stack?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (want(3)) await attempt('3 bundle + cold start', scenarioColdStart);
  if (want(6)) await attempt('6 render', scenarioRender);
  if (want(4)) await attempt('4 send path', scenarioSendScripts);
  if (want(8)) await attempt('8 send capacity', scenarioSendCapacity);
  for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9]) if (!want(n) && !(n === 5 && want(9))) notDone.push(`scenario ${n} (not selected)`);

  rows.sort((a, b) => a.scenario.localeCompare(b.scenario));
  const durationS = round((performance.now() - started) / 1000);
  printTable();
  console.log(`\n${rows.filter((r) => r.met === 'no').length} of ${rows.filter((r) => r.met !== '-').length} targeted figures miss their target; run took ${durationS} s`);
  if (notDone.length) console.log(`not done: ${notDone.join('; ')}`);

  const report = {
    started_at: startedAt.toISOString(),
    duration_seconds: durationS,
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_mb: Math.round(totalmem() / 2 ** 20), node: process.version, platform: process.platform },
    settings,
    results: rows,
    details,
    not_done: notDone,
    failures,
  };
  const outDir = join(root, 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const file = join(outDir, `${startedAt.toISOString().replace(/:/g, '-')}.json`);
  writeFileSync(file, json);
  writeFileSync(join(outDir, 'latest.json'), json);
  console.log(`results: ${file} and bench/results/latest.json`);
  if (Object.keys(failures).length) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
