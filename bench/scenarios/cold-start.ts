// Scenario 3: bundle size and cold import+init time of every function.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundling } from '../../infra/stack/lambda-bundling';
import { details, log, median, root, round, row, settings } from '../lib/report';


export async function scenarioColdStart(): Promise<void> {
  const scenario = '3 bundle + cold start';
  const outDir = mkdtempSync(join(tmpdir(), 'email-service-bundles-'));
  const families = readdirSync(join(root, 'functions')).filter((name) => existsSync(join(root, 'functions', name, 'handler.ts'))).sort();
  const perFunction: Record<string, unknown> = {};
  const env = {
    ...process.env,
    APP_RUNTIME: 'local',
    TABLE_NAME: 'bench-cold',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LOG_LEVEL: 'silent',
    NODE_OPTIONS: '',
  };
  try {
    for (const family of families) {
      const outfile = join(outDir, `${family}.js`);
      try {
        await build({
          entryPoints: [join(root, 'functions', family, 'handler.ts')],
          outfile,
          bundle: true,
          // The deployed bundles' settings (infra/stack/lambda-bundling.ts), so the sizes are theirs.
          minify: bundling.minify,
          platform: 'node',
          target: bundling.target,
          format: 'cjs',
          mainFields: bundling.mainFields,
          external: bundling.externalModules,
          logLevel: 'silent',
        });
      } catch (error) {
        perFunction[family] = { error: (error as Error).message.slice(0, 300) };
        row(scenario, `${family} bundle`, null, 'KB', { op: '<=', limit: 350 });
        continue;
      }
      const sizeKb = round(statSync(outfile).size / 1024, 1);
      const code = `const t=process.hrtime.bigint();const m=require(${JSON.stringify(outfile)});const d=Number(process.hrtime.bigint()-t)/1e6;if(typeof m.handler!=='function')throw new Error('no handler');process.stdout.write(String(d));`;
      const times: number[] = [];
      let failure: string | undefined;
      for (let i = 0; i < settings.coldRuns; i++) {
        const run = spawnSync(process.execPath, ['-e', code], { env, encoding: 'utf8', timeout: 30_000 });
        if (run.status !== 0) {
          failure = (run.stderr || run.stdout || `exit ${run.status}`).slice(0, 300);
          break;
        }
        times.push(Number(run.stdout.trim()));
      }
      const med = times.length === settings.coldRuns ? round(median(times), 1) : null;
      perFunction[family] = { bundle_kb: sizeKb, import_init_ms_median: med, import_init_ms_min: times.length ? round(Math.min(...times)) : null, import_init_ms_max: times.length ? round(Math.max(...times)) : null, runs: times.length, ...(failure ? { error: failure } : {}) };
      row(scenario, `${family} bundle`, sizeKb, 'KB', { op: '<=', limit: 350 });
      row(scenario, `${family} import+init median of ${settings.coldRuns}`, med, 'ms', { op: '<=', limit: 40 });
      log(`${family}: ${sizeKb} KB, ${med ?? 'failed'} ms`);
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  details.cold_start = perFunction;
}
