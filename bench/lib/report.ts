// Shared state of a bench run: settings from the environment, the result rows, and the table.
import { resolve } from 'node:path';

export const root = resolve(__dirname, '../..');
export const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
/** The scenarios by number and by the name of their file in bench/scenarios/. */
export const scenarioNames: Readonly<Record<string, number>> = { 'api-latency': 1, 'round-trips': 2, 'cold-start': 3, 'send-scripts': 4, 'csv-import': 5, render: 6, 'read-cost': 7, 'send-capacity': 8, 'bulk-upsert': 9 };

/** `--only cold-start,2` (or `--only=...`) on the command line, else BENCH_SCENARIOS, else all nine. */
function selectedScenarios(argv: readonly string[]): number[] {
  const flag = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  const list = flag < 0 ? (process.env.BENCH_SCENARIOS ?? '1,2,3,4,5,6,7,8,9') : argv[flag]!.startsWith('--only=') ? argv[flag]!.slice('--only='.length) : (argv[flag + 1] ?? '');
  const selected = list.split(',').map((item) => item.trim()).filter(Boolean).map((item) => scenarioNames[item] ?? Number(item));
  const unknown = selected.filter((n) => !Object.values(scenarioNames).includes(n));
  if (!selected.length || unknown.length) throw new Error(`unknown scenario in "${list}": use 1-9 or ${Object.keys(scenarioNames).join(', ')}`);
  return selected;
}

export const settings = {
  scenarios: selectedScenarios(process.argv.slice(2)),
  apiSeconds: num('BENCH_API_SECONDS', 10),
  apiConnections: num('BENCH_API_CONNECTIONS', 10),
  coldRuns: num('BENCH_COLD_RUNS', 20),
  sendRecipients: num('BENCH_SEND_RECIPIENTS', 2_000),
  sendRecipientsLarge: num('BENCH_SEND_RECIPIENTS_LARGE', 8_000),
  /** Sends per size in scenario 4 (bench/single-send-10k.ts reads it too); its figures are their medians. */
  sendRuns: num('BENCH_SEND_RUNS', 3),
  stepEnrolments: num('BENCH_STEP_ENROLMENTS', 2_000),
  csvRows: num('BENCH_CSV_ROWS', 5_000),
  upsertContacts: num('BENCH_UPSERT_CONTACTS', 10_000),
  capacityRecipients: num('BENCH_CAPACITY_RECIPIENTS', 1_000),
  childTimeoutMs: num('BENCH_CHILD_TIMEOUT_MS', 240_000),
};

export interface Row {
  scenario: string;
  figure: string;
  value: number | null;
  unit: string;
  target: string;
  met: 'yes' | 'no' | '-';
}
export const rows: Row[] = [];
export const details: Record<string, unknown> = {};
export const notDone: string[] = [];

export function row(scenario: string, figure: string, value: number | null, unit: string, target?: { op: '<=' | '>='; limit: number; text?: string }) {
  let met: Row['met'] = '-';
  if (target && value !== null) met = (target.op === '<=' ? value <= target.limit : value >= target.limit) ? 'yes' : 'no';
  if (target && value === null) met = 'no';
  rows.push({ scenario, figure, value, unit, target: target ? (target.text ?? `${target.op} ${target.limit} ${unit}`) : '-', met });
}

export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
export const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

export function printTable(): void {
  const header = ['scenario', 'figure', 'value', 'unit', 'target', 'met'];
  const body = rows.map((r) => [r.scenario, r.figure, r.value === null ? 'n/a' : String(r.value), r.unit, r.target, r.met]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((line) => line[i]!.length)));
  const format = (line: string[]) => line.map((cell, i) => (i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(' | ');
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const line of body) console.log(format(line));
}
