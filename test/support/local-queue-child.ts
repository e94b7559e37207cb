// A process of its own for the local queue's crash test: it keeps the queue in the directory given
// as its argument, sends the bodies `{n: 0..count-1}` to `imports`, and holds every batch its
// consumer receives open forever, printing `received <n>` lines so the test knows when to kill it.
import { configureLocalQueue, registerLocalConsumer } from '../../shared/queue/local-queue';
import { sendMessages } from '../../shared/queue/queue';

const [directory, countText] = process.argv.slice(2);
if (!directory || !countText) throw new Error('usage: local-queue-child.ts <directory> <count>');
Object.assign(process.env, { APP_RUNTIME: 'local', TABLE_NAME: 'unused' });

registerLocalConsumer('imports', async (event) => {
  process.stdout.write(event.Records.map((record) => `received ${(JSON.parse(record.body) as { n: number }).n}\n`).join(''));
  // The consumer never finishes: the batch is in flight when the process is killed.
  await new Promise(() => undefined);
});
configureLocalQueue({ directory, concurrency: 1, log: () => undefined });
void sendMessages(
  'imports',
  Array.from({ length: Number(countText) }, (_, n) => ({ n })),
).then(() => process.stdout.write('accepted\n'));
