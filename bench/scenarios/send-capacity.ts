// Scenario 8: what a single send with a 300 KB design costs DynamoDB, from the capacity meter
// (bench/send-capacity.ts, as a child process): write units per mail in all (indexes included) and on
// its busiest item, and reads of the design. BENCH_CAPACITY_RECIPIENTS (1000).
import { details, log, round, row, settings } from '../lib/report';
import { runScript } from './send-scripts';

export async function scenarioSendCapacity(): Promise<void> {
  const scenario = '8 send capacity';
  const recipients = settings.capacityRecipients;
  log(`send-capacity.ts ${recipients}`);
  const run = await runScript('send-capacity.ts', recipients);
  const json = run.json as {
    write_units_per_mail: number;
    read_units_per_mail: number;
    hottest_item: { key: string; write_units_per_mail: number };
    hottest_item_even_share: { write_units_per_mail: number };
    design_reads: number;
    design_read_units_per_mail: number;
    cost_per_million_mails_usd: { dynamodb_writes: number; dynamodb_reads: number; lambda: number; sqs: number; total: number };
  };
  details.send_capacity = { ...json, wall_seconds: round(run.wallMs / 1000) };
  row(scenario, `single send ${recipients}, 300 KB design: write units per mail, indexes included`, json.write_units_per_mail, 'WCU', { op: '<=', limit: 6 });
  row(scenario, `single send ${recipients}: write units per mail on its busiest item (whole transactions)`, json.hottest_item.write_units_per_mail, 'WCU', { op: '<=', limit: 0.3 });
  row(scenario, `single send ${recipients}: the same, even share of each transaction`, json.hottest_item_even_share.write_units_per_mail, 'WCU');
  row(scenario, `single send ${recipients}: read units per mail`, json.read_units_per_mail, 'RCU');
  row(scenario, `single send ${recipients}: reads of the design, whole send`, json.design_reads, 'reads');
  row(scenario, `single send ${recipients}: read units of the design per mail`, json.design_read_units_per_mail, 'RCU');
  const cost = json.cost_per_million_mails_usd;
  row(scenario, `single send ${recipients}: cost per million mails beyond SES (DynamoDB writes ${cost.dynamodb_writes}, reads ${cost.dynamodb_reads}, Lambda ${cost.lambda}, SQS ${cost.sqs})`, cost.total, 'USD', { op: '<=', limit: 2.5 });
}
