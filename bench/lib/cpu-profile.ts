// A CPU profile of the bench's own process, for a send and the yardsticks it is set against.
import { Session } from 'node:inspector/promises';

/** A CPU profile of this process (V8's, as `node --cpu-prof` writes it) from now until `stop()`. */
export async function startProfile(): Promise<{ stop: () => Promise<object> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}
