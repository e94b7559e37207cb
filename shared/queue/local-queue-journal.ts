// Where the local queue keeps its messages between runs: one append-only journal per queue under
// DATA_DIR, so a message the queue accepted survives a crash (kill -9 included) and is delivered
// again after the restart with its receive count, as SQS would redeliver a message whose consumer
// died. Each line is one JSON record: `send` (fsync'd before the sender is answered), `receive`
// (a batch was handed to the consumer), `delete` (its consumer succeeded). Dead letters go to a file
// of their own. Opening a journal replays it and rewrites it with only the live messages; while
// running it is rewritten the same way once it has grown well past them.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** A message as the journal keeps it (the queue's own message objects have this shape). */
export interface JournalMessage {
  messageId: string;
  body: string;
  group: string | undefined;
  receiveCount: number;
  sentAt: number;
  firstReceivedAt?: number;
  /** Epoch ms before which the message is not delivered (SQS DelaySeconds). */
  visibleAt?: number;
}

export interface JournalDeadLetter {
  messageId: string;
  body: string;
  receiveCount: number;
  reason: string;
  at: Date;
}

type JournalRecord =
  | { op: 'send'; id: string; body: string; group?: string; sentAt: number; receives?: number; firstReceivedAt?: number; visibleAt?: number }
  | { op: 'receive'; ids: readonly string[]; at: number }
  | { op: 'delete'; ids: readonly string[] };

type DeadLetterRecord = { id: string; body: string; receives: number; reason: string; at: string };

export interface QueueJournal {
  /** Record accepted messages; they are on disk (fsync) when this returns. */
  recordSent(messages: readonly JournalMessage[]): void;
  /** Record that a batch was handed to the consumer (its receive counts went up by one). */
  recordReceived(messageIds: readonly string[], at: number): void;
  /** Record that messages are done with: their consumer succeeded. */
  recordDeleted(messageIds: readonly string[]): void;
  /** Record a message moved to the dead-letter list (it is no longer live). */
  recordDeadLetter(letter: JournalDeadLetter): void;
  close(): void;
}

export interface OpenedJournal {
  journal: QueueJournal;
  /** The messages not yet deleted, in the order they were sent, with their receive counts. */
  messages: JournalMessage[];
  deadLetters: JournalDeadLetter[];
}

/** A journal is rewritten once it is this much larger than its live messages (and at least this large). */
const compactionFactor = 4;
const minCompactionBytes = 1 << 20;

function parseLines<T>(path: string, onBadLine: (line: number) => void): T[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n');
  const records: T[] = [];
  lines.forEach((line, index) => {
    if (line === '') return;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      // A kill in the middle of an append leaves a torn last line: that append never completed.
      if (index !== lines.length - 1) onBadLine(index + 1);
    }
  });
  return records;
}

function sendRecord(message: JournalMessage): string {
  const record: JournalRecord = {
    op: 'send',
    id: message.messageId,
    body: message.body,
    ...(message.group === undefined ? {} : { group: message.group }),
    sentAt: message.sentAt,
    ...(message.receiveCount > 0 ? { receives: message.receiveCount } : {}),
    ...(message.firstReceivedAt === undefined ? {} : { firstReceivedAt: message.firstReceivedAt }),
    ...(message.visibleAt === undefined ? {} : { visibleAt: message.visibleAt }),
  };
  return `${JSON.stringify(record)}\n`;
}

/** Write `text` to `path` through a temporary file and a rename, so a crash leaves the old or the new file whole. */
function replaceFile(directory: string, path: string, text: string): void {
  const temporary = `${path}.compacting`;
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dir = openSync(directory, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/**
 * Open (or create) the journal of `queue` under `directory`: replay it, rewrite it with only the live
 * messages, and return them. `liveMessages` gives the queue's live messages when the journal is
 * rewritten while running (their receive counts included).
 */
export function openQueueJournal(
  directory: string,
  queue: string,
  liveMessages: () => Iterable<JournalMessage>,
  log: (line: string) => void,
): OpenedJournal {
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${queue}.journal`);
  const deadLetterPath = join(directory, `${queue}.dead-letters`);
  rmSync(`${path}.compacting`, { force: true });

  const warn = (file: string) => (line: number) => log(`queue ${queue}: skipped an unreadable line ${line} of ${file}`);
  const deadLetters = parseLines<DeadLetterRecord>(deadLetterPath, warn(deadLetterPath)).map((record) => ({
    messageId: record.id,
    body: record.body,
    receiveCount: record.receives,
    reason: record.reason,
    at: new Date(record.at),
  }));
  const dead = new Set(deadLetters.map((letter) => letter.messageId));
  const messages = new Map<string, JournalMessage>();
  for (const record of parseLines<JournalRecord>(path, warn(path))) {
    if (record.op === 'send') {
      if (dead.has(record.id)) continue;
      messages.set(record.id, {
        messageId: record.id,
        body: record.body,
        group: record.group,
        receiveCount: record.receives ?? 0,
        sentAt: record.sentAt,
        ...(record.firstReceivedAt === undefined ? {} : { firstReceivedAt: record.firstReceivedAt }),
        ...(record.visibleAt === undefined ? {} : { visibleAt: record.visibleAt }),
      });
    } else if (record.op === 'receive') {
      for (const id of record.ids) {
        const message = messages.get(id);
        if (!message) continue;
        message.receiveCount++;
        message.firstReceivedAt ??= record.at;
      }
    } else if (record.op === 'delete') {
      for (const id of record.ids) messages.delete(id);
    }
  }

  // Bytes of each live message's send record, to know when the journal is mostly dead records.
  const liveBytes = new Map<string, number>();
  let liveTotal = 0;
  let fileBytes = 0;
  const track = (message: JournalMessage, line: string) => {
    const bytes = Buffer.byteLength(line);
    liveBytes.set(message.messageId, bytes);
    liveTotal += bytes;
    return bytes;
  };
  const untrack = (id: string) => {
    liveTotal -= liveBytes.get(id) ?? 0;
    liveBytes.delete(id);
  };

  const rewrite = (live: Iterable<JournalMessage>) => {
    liveBytes.clear();
    liveTotal = 0;
    let text = '';
    for (const message of live) {
      const line = sendRecord(message);
      track(message, line);
      text += line;
    }
    replaceFile(directory, path, text);
    fileBytes = Buffer.byteLength(text);
  };
  rewrite(messages.values());

  let fd: number | undefined = openSync(path, 'a');
  const append = (text: string, durable: boolean) => {
    if (fd === undefined) return;
    writeSync(fd, text);
    fileBytes += Buffer.byteLength(text);
    if (durable) fsyncSync(fd);
  };
  const compactIfLarge = () => {
    if (fd === undefined || fileBytes < Math.max(minCompactionBytes, compactionFactor * liveTotal)) return;
    closeSync(fd);
    fd = undefined;
    rewrite(liveMessages());
    fd = openSync(path, 'a');
  };

  const journal: QueueJournal = {
    recordSent(sent) {
      let text = '';
      for (const message of sent) {
        const line = sendRecord(message);
        track(message, line);
        text += line;
      }
      // Accepted means on disk: the sender is answered only after this.
      append(text, true);
    },
    recordReceived(ids, at) {
      // Not fsync'd: a receive lost with the machine (not with the process) only lowers a count.
      append(`${JSON.stringify({ op: 'receive', ids, at } satisfies JournalRecord)}\n`, false);
    },
    recordDeleted(ids) {
      // Not fsync'd either: a delete lost with the machine means one more delivery, which SQS allows too.
      append(`${JSON.stringify({ op: 'delete', ids } satisfies JournalRecord)}\n`, false);
      ids.forEach(untrack);
      compactIfLarge();
    },
    recordDeadLetter(letter) {
      if (fd === undefined) return;
      const record: DeadLetterRecord = { id: letter.messageId, body: letter.body, receives: letter.receiveCount, reason: letter.reason, at: letter.at.toISOString() };
      const deadFd = openSync(deadLetterPath, 'a');
      try {
        writeSync(deadFd, `${JSON.stringify(record)}\n`);
      } finally {
        closeSync(deadFd);
      }
      untrack(letter.messageId);
    },
    close() {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
  return { journal, messages: [...messages.values()], deadLetters };
}
