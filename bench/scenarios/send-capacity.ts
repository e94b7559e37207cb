// Scenario 8: what a single send with a 300 KB design costs DynamoDB, from the capacity meter
// (bench/send-capacity.ts, as a child process): write units per mail in all (indexes included) and on
// its busiest item, and reads of the design; then the cost per million mails beyond SES of a send
// and of an automation step's mails (bench/step-capacity.ts) with the typical 30 KB design.
// BENCH_CAPACITY_RECIPIENTS (1000).
import { details, log, round, row, settings } from '../lib/report';
import { runScript } from './send-scripts';

type Priced = {
  write_units_per_mail: number;
  read_units_per_mail: number;
  hottest_item: { key: string; write_units_per_mail: number };
  hottest_item_even_share: { write_units_per_mail: number };
  design_reads: number;
  design_read_units_per_mail: number;
  cost_per_million_mails_usd: { dynamodb_writes: number; dynamodb_reads: number; lambda: number; sqs: number; firehose: number; s3: number; total: number };
};

/** Run one capacity script with a design of `designKb` (its child reads BENCH_CAPACITY_DESIGN_KB). */
async function priced(script: string, mails: number, designKb: number): Promise<{ json: Priced; wallMs: number }> {
  const before = process.env.BENCH_CAPACITY_DESIGN_KB;
  process.env.BENCH_CAPACITY_DESIGN_KB = String(designKb);
  try {
    log(`${script} ${mails}, ${designKb} KB design`);
    const run = await runScript(script, mails);
    return { json: run.json as Priced, wallMs: run.wallMs };
  } finally {
    if (before === undefined) delete process.env.BENCH_CAPACITY_DESIGN_KB;
    else process.env.BENCH_CAPACITY_DESIGN_KB = before;
  }
}

const costText = (cost: Priced['cost_per_million_mails_usd']) =>
  `DynamoDB writes ${cost.dynamodb_writes}, reads ${cost.dynamodb_reads}, Lambda ${cost.lambda}, SQS ${cost.sqs}, Firehose ${cost.firehose}, S3 ${cost.s3}`;

export async function scenarioSendCapacity(): Promise<void> {
  const scenario = '8 send capacity';
  const recipients = settings.capacityRecipients;
  const { json, wallMs } = await priced('send-capacity.ts', recipients, 300);
  details.send_capacity = { ...json, wall_seconds: round(wallMs / 1000) };
  row(scenario, `single send ${recipients}, 300 KB design: write units per mail, indexes included`, json.write_units_per_mail, 'WCU', { op: '<=', limit: 6 });
  row(scenario, `single send ${recipients}: write units per mail on its busiest item (whole transactions)`, json.hottest_item.write_units_per_mail, 'WCU', { op: '<=', limit: 0.3 });
  row(scenario, `single send ${recipients}: the same, even share of each transaction`, json.hottest_item_even_share.write_units_per_mail, 'WCU');
  row(scenario, `single send ${recipients}: read units per mail`, json.read_units_per_mail, 'RCU');
  row(scenario, `single send ${recipients}: reads of the design, whole send`, json.design_reads, 'reads');
  row(scenario, `single send ${recipients}: read units of the design per mail`, json.design_read_units_per_mail, 'RCU');
  row(scenario, `single send ${recipients}, 300 KB design: cost per million mails beyond SES (${costText(json.cost_per_million_mails_usd)})`, json.cost_per_million_mails_usd.total, 'USD');
  // The typical design, for the single send and for an automation step's mails.
  const typical = await priced('send-capacity.ts', recipients, 30);
  details.send_capacity_typical = { ...typical.json, wall_seconds: round(typical.wallMs / 1000) };
  row(scenario, `single send ${recipients}, 30 KB design: cost per million mails beyond SES (${costText(typical.json.cost_per_million_mails_usd)})`, typical.json.cost_per_million_mails_usd.total, 'USD', { op: '<=', limit: 2.5 });
  const step = await priced('step-capacity.ts', recipients, 30);
  details.step_capacity = { ...step.json, wall_seconds: round(step.wallMs / 1000) };
  row(scenario, `automation step ${recipients}, 30 KB design: write units per mail`, step.json.write_units_per_mail, 'WCU');
  row(scenario, `automation step ${recipients}, 30 KB design: cost per million step mails beyond SES (${costText(step.json.cost_per_million_mails_usd)})`, step.json.cost_per_million_mails_usd.total, 'USD');
}
