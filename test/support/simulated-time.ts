// A test file's simulated clock that only moves forward, as real time does (the automation runner
// remembers the hours it drained), installed with the in-process mail sink around the file.
import type { SesSink } from '../../infra/local/ses-sink';
import { resetClock, setClock } from '../../shared/time';
import { startMailSink, stopMailSink } from './senders';

export interface SimulatedTime {
  /** The simulated now, in epoch milliseconds. */
  now(): number;
  advance(ms: number): void;
  /** The mail sink, once `beforeAll` has started it. */
  sink(): SesSink;
}

/** Call at the top of a test file: registers the `beforeAll`/`afterAll` that install and remove both. */
export function simulatedTimeWithSink(): SimulatedTime {
  let simulated = Date.now();
  let sink: SesSink | undefined;
  beforeAll(async () => {
    sink = await startMailSink();
    setClock(() => new Date(simulated));
  });
  afterAll(async () => {
    resetClock();
    if (sink) await stopMailSink(sink);
  });
  return {
    now: () => simulated,
    advance: (ms) => {
      simulated += ms;
    },
    sink: () => {
      if (!sink) throw new Error('the mail sink starts in beforeAll');
      return sink;
    },
  };
}
