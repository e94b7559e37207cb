// A process of its own for the SES sink's crash test: a sink keeping its mail and events in the
// directory given as its argument, whose feedback function never finishes (the events of every mail
// stay unapplied), printing `endpoint <url>` once it listens so the test can mail it and then kill it.
import { startSesSink } from '../../infra/local/ses-sink';

const [directory] = process.argv.slice(2);
if (!directory) throw new Error('usage: ses-sink-child.ts <directory>');

void startSesSink({ port: 0, directory, events: () => new Promise(() => undefined), log: () => undefined }).then((sink) => process.stdout.write(`endpoint ${sink.endpoint}\n`));
