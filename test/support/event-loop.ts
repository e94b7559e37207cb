// How often the event loop turns while some work runs: a reader that yields between slices lets
// other requests in, and this counts the chances they had, without timing anything.
export async function eventLoopTurnsDuring<Result>(work: () => Promise<Result>): Promise<{ result: Result; turns: number }> {
  let running = true;
  let turns = 0;
  const turn = () => {
    turns++;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}
