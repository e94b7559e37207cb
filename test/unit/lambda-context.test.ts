// The local runtime hands each function the time limit it has deployed, so a long run hands over
// to a fresh message or run at the same point on a laptop as on Lambda.
import { lambdaContext } from '../../infra/local/lambda-context';

const secondsLeft = (name: string) => Math.round(lambdaContext(name, 'request').getRemainingTimeInMillis() / 1000);

test('each function gets its deployed time limit: queue consumers 5 minutes, the step runner 55 s, HTTP 29 s', () => {
  expect(Object.fromEntries(['send-deliver', 'contact-import', 'send-dispatch', 'automation-steps', 'send-watchdog', 'webhook-deliver', 'contacts'].map((name) => [name, secondsLeft(name)]))).toEqual({
    'send-deliver': 300,
    'contact-import': 300,
    'send-dispatch': 300,
    'automation-steps': 55,
    'send-watchdog': 60,
    'webhook-deliver': 90,
    contacts: 29,
  });
});

test('a caller may still set a shorter limit', () => {
  expect(lambdaContext('send-deliver', 'request', 10_000).getRemainingTimeInMillis()).toBeLessThanOrEqual(10_000);
});
