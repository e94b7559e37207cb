// The addresses of SES's mailbox simulator (`success@`, `bounce@`, `ooto@`, `complaint@` and
// `suppressionlist@` at simulator.amazonses.com, each also as `name+label@`): mail to them never
// reaches anyone, and SES answers each with a fixed outcome. The local SES sink plays those outcomes
// back as SES events (infra/local/ses-simulator.ts), beside the Delivery it publishes for every other address.

export const mailboxSimulatorDomain = 'simulator.amazonses.com';

export const simulatorScenarios = ['success', 'bounce', 'ooto', 'complaint', 'suppressionlist'] as const;

/** What SES does with a mail to one of the simulator's mailboxes. */
export type SimulatorScenario = (typeof simulatorScenarios)[number];

const scenarioNames: ReadonlySet<string> = new Set(simulatorScenarios);

/**
 * The scenario an address stands for, or undefined for any other address (another mailbox at the
 * simulator's domain too: SES documents only these five). Case-insensitive, as SES treats them, and
 * a `+label` is ignored (`bounce+42@…` bounces), so one send can hold many distinct simulator recipients.
 */
export function simulatorScenarioOf(address: string): SimulatorScenario | undefined {
  const text = address.trim().toLowerCase();
  const at = text.lastIndexOf('@');
  if (at < 1 || text.slice(at + 1) !== mailboxSimulatorDomain) return undefined;
  const mailbox = text.slice(0, at).split('+')[0] ?? '';
  return scenarioNames.has(mailbox) ? (mailbox as SimulatorScenario) : undefined;
}

/** True for an address of SES's mailbox simulator. */
export function isMailboxSimulatorAddress(address: string): boolean {
  return simulatorScenarioOf(address) !== undefined;
}
