// The spec's `automation_for` text (`contacts_<contact_type_id>` or `segments_<segment_id>`) read into
// a target kind and id.
import type { AutomationTarget } from '../../shared/automations/repository';

export const targetPattern = /^(contacts_|segments_)([1-9]\d{0,14})$/;

/** The target named by `automation_for`, or undefined when the text is not in either form. */
export function parseAutomationTarget(text: string): AutomationTarget | undefined {
  const match = targetPattern.exec(text);
  if (!match) return undefined;
  return { table: match[1] as AutomationTarget['table'], id: Number(match[2]) };
}
