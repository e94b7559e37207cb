// The SES sink in a process of its own, for the send-path benchmarks (started by sink-process.ts
// with an IPC channel). A run's pipeline then has its Node thread to itself, as deployed, where the
// sink is SES: the sink's HTTP server and the parsing of each mail are not counted as the pipeline's.
// It tallies and drops mail as it lands (sink-drain.ts) and reports the tally to the parent.
import { startSesSink } from '../../infra/local/ses-sink';
import { drainSink } from './sink-drain';
import type { SinkCommand, SinkReport } from './sink-process';

const report = (message: SinkReport) => process.send?.(message);

async function main(): Promise<void> {
  if (!process.send) throw new Error('sink-child.ts runs as a child with an IPC channel (bench/lib/sink-process.ts)');
  // No SES events from here: this process runs no function, so the runs' sends count nothing
  // delivered. No tenant pauses either: this process has no table to read tenants from, and SES
  // checks a mail's tenant on its side (before, each mail naming one failed that read and logged a
  // line: 0.23 ms of this process's CPU a mail in the send, none in the yardstick's mail, which named
  // no tenant). A variable, not a literal: a sink without those options takes them too.
  const options = { port: 0, events: false as const, tenantPauses: false as const };
  const sink = await startSesSink(options);
  // Mail outside a measured run (the yardstick's) is dropped too, so the sink's memory stays flat.
  let drain: ReturnType<typeof drainSink> | undefined = drainSink(/(?!)/);
  let watcher: NodeJS.Timeout | undefined;
  const tally = (final: boolean): SinkReport => ({
    kind: final ? 'final' : 'tally',
    mails: drain?.tally.mails ?? 0,
    addresses: drain?.tally.addresses.size ?? 0,
    firstAt: drain?.firstAt ?? null,
    lastAt: drain?.lastAt ?? null,
  });
  process.on('message', (command: SinkCommand) => {
    switch (command.kind) {
      case 'drain':
        drain?.stop();
        clearInterval(watcher);
        drain = drainSink(new RegExp(command.pattern), command.everyMs);
        // The parent reads the latest tally without asking: one small message per drain.
        watcher = setInterval(() => report(tally(false)), command.everyMs);
        break;
      case 'stop-drain':
        clearInterval(watcher);
        drain?.stop();
        report(tally(true));
        drain = drainSink(/(?!)/);
        break;
      case 'exit':
        clearInterval(watcher);
        drain?.stop();
        void sink.stop().then(() => process.exit(0));
        break;
    }
  });
  // The parent going away ends the sink too.
  process.on('disconnect', () => process.exit(0));
  report({ kind: 'ready', endpoint: sink.endpoint });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
