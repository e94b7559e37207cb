// The local stand-in of WAF's rate rule: each address's requests over the trailing minute, refused
// ones counted too, refused while over the limit and let in once its last minute is back at it.
import { ClientLimit } from '../../infra/local/public-links-gateway';

test('an address is refused past its limit in the trailing minute, alone, and let in once that minute falls under it', () => {
  let now = 1_000;
  const limit = new ClientLimit(3, () => now);
  const take = (address: string, times: number) => Array.from({ length: times }, () => limit.take(address));

  expect(take('192.0.2.1', 4)).toEqual([false, false, false, true]);
  expect(take('192.0.2.2', 1)).toEqual([false]);
  now += 59;
  // Still within the minute of the first four: refused, and counted.
  expect(take('192.0.2.1', 1)).toEqual([true]);
  now += 1;
  // The first four have left the window; the refused one of a second ago has not.
  expect(take('192.0.2.1', 3)).toEqual([false, false, true]);
});
