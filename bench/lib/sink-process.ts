// The SES sink in a child process (sink-child.ts), as the send-path benchmarks run it: its endpoint
// for the local stack (`sesEndpoint`), the tally of a run's mail as it lands, and its CPU time.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { processCpuMs } from './cpu-meter';

export type SinkCommand = { kind: 'drain'; pattern: string; everyMs: number } | { kind: 'stop-drain' } | { kind: 'exit' };
export type SinkReport =
  | { kind: 'ready'; endpoint: string }
  | { kind: 'tally' | 'final'; mails: number; addresses: number; firstAt: number | null; lastAt: number | null };
export type SinkTallyReport = Extract<SinkReport, { kind: 'tally' | 'final' }>;

export interface SinkProcess {
  endpoint: string;
  pid: number;
  /** Tally the mail to addresses matching `pattern` from now on (mail is dropped as it lands, every `everyMs`). */
  drain(pattern: RegExp, everyMs?: number): void;
  /** The latest tally the child reported (within `everyMs` of now). */
  readonly tally: SinkTallyReport;
  /** Drain once more and answer the run's final tally. */
  stopDrain(): Promise<SinkTallyReport>;
  /** CPU milliseconds the sink's process used so far (Linux; undefined elsewhere). */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

const empty: SinkTallyReport = { kind: 'tally', mails: 0, addresses: 0, firstAt: null, lastAt: null };

export function startSinkProcess(): Promise<SinkProcess> {
  const child: ChildProcess = fork(join(__dirname, 'sink-child.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let latest = empty;
  let final: ((tally: SinkTallyReport) => void) | undefined;
  const send = (command: SinkCommand) => child.send(command);
  return new Promise((ready, fail) => {
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`the SES sink process exited (${code}) before it was ready`)));
    child.on('message', (message: SinkReport) => {
      if (message.kind === 'ready') {
        child.removeAllListeners('exit');
        ready({
          endpoint: message.endpoint,
          pid: child.pid!,
          drain: (pattern, everyMs = 50) => {
            latest = empty;
            send({ kind: 'drain', pattern: pattern.source, everyMs });
          },
          get tally() {
            return latest;
          },
          stopDrain: () =>
            new Promise((done) => {
              final = done;
              send({ kind: 'stop-drain' });
            }),
          cpuMs: () => processCpuMs(child.pid!),
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              send({ kind: 'exit' });
            }),
        });
      } else if (message.kind === 'final') {
        latest = message;
        final?.(message);
        final = undefined;
      } else latest = message;
    });
  });
}
