// Keeps the local sink's SES events on disk until the ses-events queue has them, as SES keeps the
// events of a mail it accepted whatever happens to the caller: each mail's events are appended before
// SES's answer goes out, each event is marked once the queue took it (or it was parked), and a start takes back
// the events a crash (kill -9 included) left unmarked. The file holds only those not yet marked and
// their marks: it is emptied whenever every kept event is marked.
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { SesEventBridgeEvent } from './ses-simulator';

/** The file events are kept in, under the sink's directory: one JSON line per kept event or mark. */
export const eventsFileName = 'events.jsonl';

type JournalLine = { keep: SesEventBridgeEvent } | { done: string };

export interface SesEventJournal {
  /** The events a crash left unmarked, in the order they were kept. */
  readonly unsettled: readonly SesEventBridgeEvent[];
  /** Keep a mail's events; on disk when this returns. */
  keep(events: readonly SesEventBridgeEvent[]): void;
  /** The event reached its target or was parked: never published again. */
  settled(event: SesEventBridgeEvent): void;
  close(): void;
}

/** The kept events without a mark; a last line torn by a kill is left out (its mail was never acknowledged). */
function loadUnsettled(file: string): SesEventBridgeEvent[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const lines = text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JournalLine);
  const done = new Set(lines.flatMap((line) => ('done' in line ? [line.done] : [])));
  return lines.flatMap((line) => ('keep' in line && !done.has(line.keep.id) ? [line.keep] : []));
}

const keepLines = (events: readonly SesEventBridgeEvent[]) => events.map((event) => `${JSON.stringify({ keep: event })}\n`).join('');

export function openSesEventJournal(directory: string): SesEventJournal {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, eventsFileName);
  const unsettled = loadUnsettled(file);
  // The file starts again from the unsettled events alone, replaced whole so a kill meanwhile loses none.
  writeFileSync(`${file}.new`, keepLines(unsettled));
  renameSync(`${file}.new`, file);
  const fd = openSync(file, 'a');
  let open = unsettled.length;
  return {
    unsettled,
    keep(events) {
      if (events.length === 0) return;
      writeSync(fd, keepLines(events));
      open += events.length;
    },
    settled(event) {
      open--;
      // Appends go to the end of the file, so after this they start again at its beginning.
      if (open === 0) ftruncateSync(fd, 0);
      else writeSync(fd, `${JSON.stringify({ done: event.id })}\n`);
    },
    close: () => closeSync(fd),
  };
}
