// A scheduled send's date and time are a wall clock in an IANA time zone (`schedule_timezone`, UTC
// when none is given): which names are zones, and the instant a wall-clock time names there, with the
// platform's own time-zone data (Intl), so daylight saving time follows the tz database.

// `Area/Location` (one or more parts) or `UTC`, as PHP's timezone_identifiers_list() names zones:
// abbreviations (`CET`, `EST`) and offsets (`+01:00`) are not zones there, so not here either.
const zonePattern = /^(?:UTC|[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)+)$/;

let spellings: Map<string, string> | undefined;

/** The zones Intl lists, by lower-cased name, to answer a name in its own spelling. */
function knownSpellings(): Map<string, string> {
  spellings ??= new Map(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]));
  return spellings;
}

/**
 * The zone `text` names, in the zone's own spelling; undefined when it names none. Intl resolves
 * links too (`Asia/Kolkata` where its list says `Asia/Calcutta`), so any current tz name is accepted.
 */
export function timeZoneName(text: string): string | undefined {
  if (!zonePattern.test(text)) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: text });
  } catch {
    return undefined;
  }
  return knownSpellings().get(text.toLowerCase()) ?? text;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, found);
  }
  return found;
}

/** The zone's wall clock at the instant `at` (epoch ms), as epoch ms of the same fields read as UTC. */
function wallClockAt(at: number, zone: string): number {
  const parts = formatter(zone).formatToParts(new Date(at));
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((part) => part.type === type)?.value);
  return Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
}

const dayMs = 24 * 3600_000;

/**
 * The instant the wall-clock `date` `time` names in `zone`. When the clocks go back and the time
 * happens twice, the earlier instance; when they go forward over it, undefined: it never happens.
 */
export function zonedMoment(date: string, time: string, zone: string): Date | undefined {
  const wall = Date.parse(`${date}T${time}Z`);
  // The zone's offsets a day either side and at the time itself cover any transition near it.
  const offsets = new Set([-dayMs, 0, dayMs].map((shift) => wallClockAt(wall + shift, zone) - (wall + shift)));
  const instants = [...offsets]
    .map((offset) => wall - offset)
    .filter((instant) => wallClockAt(instant, zone) === wall)
    .sort((a, b) => a - b);
  return instants.length > 0 ? new Date(instants[0] as number) : undefined;
}
