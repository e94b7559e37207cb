// Engagement conditions: `email_opened` and `email_clicked` judged on a contact's address's opens and
// clicks (people's only: a machine's open or a bot's click never counts). Pure, like rules.ts.

/** The two engagement fields; a click counts as an open too. */
export const engagementFields = ['email_opened', 'email_clicked'] as const;

export type EngagementField = (typeof engagementFields)[number];

export const engagementOperators = ['in single send', 'not in single send', 'in last days', 'not in last days'] as const;

export type EngagementOperator = (typeof engagementOperators)[number];

/** The longest window of `in last days`, in days. */
export const maxWindowDays = 365;

/** What one single send did with an address: mailed it (the ledger holds it sent or uncertain), and the address opened or clicked it. */
export interface SendEngagement {
  mailed: boolean;
  opened: boolean;
  clicked: boolean;
}

/**
 * An address's engagement as the conditions of one segment need it: per single send they name, and
 * the UTC day (`YYYY-MM-DD`) of its latest open and latest click of any mail of the account.
 */
export interface EngagementFacts {
  sends: ReadonlyMap<string, SendEngagement>;
  lastOpenDay: string | null;
  lastClickDay: string | null;
}

export const noEngagement: EngagementFacts = { sends: new Map(), lastOpenDay: null, lastClickDay: null };

export function isEngagementField(value: string): value is EngagementField {
  return (engagementFields as readonly string[]).includes(value);
}

export function isEngagementOperator(value: unknown): value is EngagementOperator {
  return typeof value === 'string' && (engagementOperators as readonly string[]).includes(value);
}

/** Operators whose value names a single send (its utr); the others take a number of days. */
export function namesSingleSend(operator: string): boolean {
  return operator === 'in single send' || operator === 'not in single send';
}

/** The UTC day of a time, `YYYY-MM-DD`. */
export function dayOf(time: Date): string {
  return time.toISOString().slice(0, 10);
}

/** The day `days` days after (negative: before) `day`. */
export function addDays(day: string, days: number): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));
}

/**
 * Whether an event on `eventDay` lies in the window of the last `days` days on `today`: whole UTC days,
 * from the day `days` days before today through today. So a contact who engaged at most `days` x 24 hours
 * ago is always inside, and leaves at the first daily slide after its day falls out (docs/api-notes.md).
 */
export function inWindow(eventDay: string | null, days: number, today: string): boolean {
  return eventDay !== null && eventDay >= addDays(today, -days);
}

interface EngagementCondition {
  field: string;
  operator: string;
  value: string;
}

/** Whether an address's engagement satisfies one engagement condition on `today`. */
export function engagementMatches(condition: EngagementCondition, facts: EngagementFacts, today: string): boolean {
  const clicks = condition.field === 'email_clicked';
  switch (condition.operator) {
    case 'in single send':
    case 'not in single send': {
      const send = facts.sends.get(condition.value);
      // An open or a click proves the mail arrived, whatever the ledger says yet.
      const engaged = send !== undefined && (clicks ? send.clicked : send.opened || send.clicked);
      if (condition.operator === 'in single send') return engaged;
      return send !== undefined && send.mailed && !engaged;
    }
    case 'in last days':
    case 'not in last days': {
      const days = Number(condition.value);
      const last = clicks ? facts.lastClickDay : latest(facts.lastOpenDay, facts.lastClickDay);
      const inside = inWindow(last, days, today);
      return condition.operator === 'in last days' ? inside : !inside;
    }
    default:
      return false;
  }
}

function latest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}
