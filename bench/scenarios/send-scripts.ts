// Scenario 4: the send-path and automation-step scripts, as child processes.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { details, log, root, round, row, settings } from '../lib/report';

export function runScript(script: string, arg: number, timeoutMs = settings.childTimeoutMs): Promise<{ json: Record<string, unknown>; maxRssKb: number | null; wallMs: number }> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', '-r', join(root, 'bench/lib/max-rss.cjs'), join(root, 'bench', script), String(arg)], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      const rss = /BENCH_MAX_RSS_KB=(\d+)/.exec(stderr);
      const start = stdout.search(/^\{/m);
      if (code !== 0 || start === -1) {
        fail(new Error(`${script} ${arg} exited ${code ?? signal}: ${(stderr || stdout).slice(-600)}`));
        return;
      }
      try {
        done({ json: JSON.parse(stdout.slice(start)) as Record<string, unknown>, maxRssKb: rss ? Number(rss[1]) : null, wallMs });
      } catch (error) {
        fail(new Error(`${script}: unreadable output (${(error as Error).message}): ${stdout.slice(0, 400)}`));
      }
    });
  });
}

/** The send path's figures (each the median of the script's runs), as rows. */
function sendRows(scenario: string, recipients: number, json: Record<string, unknown>, maxRssKb: number | null): void {
  const limit = json.conditional_put_limit as { puts_per_second: number; concurrency: number };
  const sink = json.sink_limit as { mails_per_second: number };
  const runs = `median of ${Number(json.runs)}`;
  row(scenario, `single send ${recipients} recipients, dispatch+deliver (${runs})`, Number(json.mails_per_second), 'mails/s', { op: '>=', limit: 2000 });
  row(scenario, `store limit: conditional puts, ${limit.concurrency} in flight (same runs)`, Math.round(limit.puts_per_second), 'puts/s');
  row(scenario, `single send ${recipients}: mails/s over conditional puts/s`, Number(json.share_of_put_limit), 'x');
  row(scenario, `single send ${recipients}: ceiling, CPU per put over CPU of one SES call + one ledger claim (PutItem) and mark (UpdateItem)`, Number(json.floor_cpu_share_of_put_limit), 'x');
  row(scenario, `single send ${recipients}: share of the ceiling (mails/s over puts/s, over the ceiling, ${runs})`, Number(json.share_of_ceiling), 'x', { op: '>=', limit: 0.75 });
  row(scenario, `single send ${recipients}: share of the ceiling from the first mail to the last (without the scheduler's poll and the dispatch before it)`, Number(json.window_share_of_ceiling), 'x');
  row(scenario, `single send ${recipients}: share of the ceiling where CPU is the limit (ceiling's CPU over CPU per recipient)`, Number(json.cpu_share_of_ceiling), 'x');
  row(scenario, `single send ${recipients}: ceiling with claims and marks in transactions of 12 + 12, and the share of it`, Number(json.floor_cpu_share_in_transactions), 'x');
  row(scenario, `single send ${recipients}: share of the ceiling with claims and marks in transactions`, Number(json.share_of_ceiling_in_transactions), 'x');
  row(scenario, `single send ${recipients}: first to last mail, over conditional puts/s`, Number(json.window_share_of_put_limit), 'x');
  row(scenario, `single send ${recipients}: CPU per put over CPU per recipient (all processes)`, Number(json.cpu_share_of_put_limit), 'x');
  row(scenario, `SES sink alone: SendEmail, ${limit.concurrency} in flight (same runs)`, sink.mails_per_second, 'mails/s');
  row(scenario, `single send ${recipients}: DynamoDB requests per recipient`, Number(json.dynamodb_requests_per_recipient), 'requests');
  row(scenario, `single send ${recipients}: peak heap during a send (highest of the runs)`, Number(json.peak_heap_during_send_mb), 'MB');
  row(scenario, `single send ${recipients}: heap left by a full collection after the last send (before the sends: ${Number(json.heap_before_sends_mb)} MB)`, Number(json.heap_after_sends_mb), 'MB');
  row(scenario, `single send ${recipients}: process peak RSS (incl. setup)`, maxRssKb === null ? null : round(maxRssKb / 1024, 0), 'MB');
}

export async function scenarioSendScripts(): Promise<void> {
  const scenario = '4 send path';
  // The second, larger run shows whether memory grows with the number of recipients.
  const sizes = [settings.sendRecipients, settings.sendRecipientsLarge];
  const runs: Record<string, unknown>[] = [];
  for (const recipients of sizes) {
    log(`single-send-10k.ts ${recipients}`);
    try {
      // Each send and each set of yardsticks around it about as long as one send took alone before.
      const send = await runScript('single-send-10k.ts', recipients, settings.childTimeoutMs * (settings.sendRuns + 1));
      runs.push({ ...send.json, peak_rss_kb: send.maxRssKb, wall_seconds: round(send.wallMs / 1000) });
      sendRows(scenario, recipients, send.json, send.maxRssKb);
    } catch (error) {
      runs.push({ recipients, error: (error as Error).message });
      row(scenario, `single send ${recipients} recipients, dispatch+deliver (median of ${settings.sendRuns})`, null, 'mails/s', { op: '>=', limit: 2000 });
      log(`single send failed: ${(error as Error).message}`);
    }
  }
  details.single_send = runs;
  log(`automation-steps.ts ${settings.stepEnrolments}`);
  try {
    const steps = await runScript('automation-steps.ts', settings.stepEnrolments);
    details.automation_steps = { ...steps.json, peak_rss_kb: steps.maxRssKb, wall_seconds: round(steps.wallMs / 1000) };
    row(scenario, `automation steps ${settings.stepEnrolments} due enrolments`, Number(steps.json.mails_per_second), 'mails/s', { op: '>=', limit: 2000 });
  } catch (error) {
    details.automation_steps = { error: (error as Error).message };
    row(scenario, `automation steps ${settings.stepEnrolments} due enrolments`, null, 'mails/s', { op: '>=', limit: 2000 });
    log(`automation steps failed: ${(error as Error).message}`);
  }
}
