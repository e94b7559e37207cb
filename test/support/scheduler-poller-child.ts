// A process of its own for the local scheduler's crash test: it polls the table named in its
// environment, and its `send-dispatch` target prints `fired <payload>` and never finishes, so the
// test can kill the process while the job is running.
import { startSchedulerPoller } from '../../infra/local/scheduler-poller';

startSchedulerPoller({
  intervalMs: 50,
  recurring: {},
  targets: {
    'send-dispatch': async (payload) => {
      process.stdout.write(`fired ${JSON.stringify(payload)}\n`);
      await new Promise(() => undefined);
    },
  },
  log: (line) => process.stdout.write(`${line}\n`),
});
