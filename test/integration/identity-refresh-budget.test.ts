// The periodic identity check as deployed (the SES adapters on a faked SES, DynamoDB Local), paced at
// SES's one control-plane call a second on a simulated clock: a run stops looking while its reserve of
// time is left, and the next run goes on after the last sender looked at, round and round; an address
// identity whose verification mail went unclicked for a day is deleted (a late click is honoured); the
// region's identities are counted with ListEmailIdentities.
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { handler as refreshHandler, refreshReserveMs } from '../../functions/identity-refresh/handler';
import { handler as sendersHandler } from '../../functions/senders/handler';
import { pendingSenderHours, type RefreshRun } from '../../shared/sender-verification/refresh-service';
import { resetSesControlPacer } from '../../shared/rate-limits/ses-control';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { handlerCaller, multipart, type Keys } from '../support/events';
import { deployedRuntime, fakeSesIdentities, type FakeSesIdentities } from '../support/fake-ses-identities';
import { useTestTable, type TestTable } from '../support/local-stack';
import { senderInput } from '../support/senders';

const senders = handlerCaller(sendersHandler);

let table: TestTable;
let runtime: { restore(): void };
let ses: FakeSesIdentities;
let simulated = Math.ceil(Date.now() / 1000) * 1000;

beforeAll(async () => {
  table = await useTestTable();
  await seedReferenceData();
  setClock(() => new Date(simulated));
  // The pacer's clock is the simulated one: waiting for a slot moves time on, nothing waits for real.
  resetSesControlPacer({
    now: () => simulated,
    sleep: async (ms) => {
      simulated += ms;
    },
  });
  // One account saves six senders within the hour.
  runtime = deployedRuntime({ SES_CONTROL_RATE: '1', SYSTEM_MAIL_VERIFICATIONS_PER_HOUR: '10' });
  ses = fakeSesIdentities();
}, 60_000);

afterAll(async () => {
  ses.restore();
  runtime.restore();
  resetSesControlPacer();
  resetClock();
  await table.stop();
});

/** Move on to the start of a later second, past every slot taken so far. */
function nextQuietSecond(): void {
  simulated = Math.ceil(simulated / 1000) * 1000 + 10_000;
}

/** A run of the handler whose Lambda has `lookingMs` left beyond its reserve. */
function runWithTime(lookingMs: number): Promise<RefreshRun> {
  const deadline = simulated + refreshReserveMs + lookingMs;
  return refreshHandler({}, { getRemainingTimeInMillis: () => deadline - simulated } as Context) as Promise<RefreshRun>;
}

/** The addresses the run asked SES about (GetEmailIdentity), in order. */
async function askedDuring(run: () => Promise<RefreshRun>): Promise<{ asked: string[]; run: RefreshRun }> {
  const before = ses.calls.length;
  const result = await run();
  const asked = ses.calls.slice(before).filter((call) => call.command === 'GetEmailIdentityCommand').map((call) => String(call.input.EmailIdentity));
  return { asked, run: result };
}

async function saveSender(keys: Keys, fromEmail: string): Promise<void> {
  expect((await senders(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) })).status).toBe(200);
}

async function senderStates(keys: Keys): Promise<Record<string, 0 | 1>> {
  const { body } = await senders(keys, 'GET', 'senders');
  return Object.fromEntries((body.message as { senders: { from_email: string; is_verified: 0 | 1 }[] }).senders.map((sender) => [sender.from_email, sender.is_verified]));
}

describe('the identity check at SES control-plane pace', () => {
  const addresses = Array.from({ length: 6 }, (_, index) => `a${index + 1}-${randomUUID()}@example.net`);
  let keys: Keys;

  test('a run stops while its reserve is left; the next goes on after the last sender looked at, round and round', async () => {
    keys = await newAccount();
    for (const address of addresses) await saveSender(keys, address);
    const [a1, a2, a3, a4, a5, a6] = addresses;

    // 2.5 s of looking at one call a second: looks at 0, 1, 2 and 3 s, then the reserve is reached.
    nextQuietSecond();
    const first = await askedDuring(() => runWithTime(2_500));
    nextQuietSecond();
    const second = await askedDuring(() => runWithTime(2_500));
    nextQuietSecond();
    const third = await askedDuring(() => runWithTime(2_500));

    expect([first.asked, second.asked, third.asked]).toEqual([
      [a1, a2, a3, a4],
      [a5, a6, a1, a2],
      [a3, a4, a5, a6],
    ]);
    expect(first.run).toEqual({
      domains: { checked: 0, verified: 0, failed: 0 },
      senders: { checked: 4, verified: 0, failed: 0 },
      expired: { checked: 0, verified: 0, removed: 0, failed: 0 },
      complete: false,
    });
  });

  test("with time enough, a run looks at every wait once and counts the region's identities", async () => {
    ses.addOutside('outside.example');
    nextQuietSecond();
    const { asked, run } = await askedDuring(() => runWithTime(60_000));
    expect(asked).toHaveLength(6);
    expect(new Set(asked)).toEqual(new Set(addresses));
    expect(run).toEqual({
      domains: { checked: 0, verified: 0, failed: 0 },
      senders: { checked: 6, verified: 0, failed: 0 },
      expired: { checked: 0, verified: 0, removed: 0, failed: 0 },
      identitiesInUse: 7,
      complete: true,
    });
    expect(ses.inputsOf('ListEmailIdentities')).toEqual([{ PageSize: 1000 }]);
  });

  test('an address identity left unclicked for a day is deleted, a late click is honoured, and the senders leave the check', async () => {
    const [a1, ...unclicked] = addresses as [string, ...string[]];
    // Clicked within its 24 hours, after the last run that looked at it.
    ses.click(a1);
    simulated += (pendingSenderHours + 1) * 3_600_000;
    nextQuietSecond();
    const { run } = await askedDuring(() => runWithTime(120_000));

    expect(run.expired).toEqual({ checked: 6, verified: 1, removed: 5, failed: 0 });
    expect(ses.inputsOf('DeleteEmailIdentity')).toEqual(unclicked.map((address) => ({ EmailIdentity: address })));
    expect(addresses.map((address) => ses.has(address))).toEqual([true, false, false, false, false, false]);
    expect(await senderStates(keys)).toEqual(Object.fromEntries(addresses.map((address) => [address, address === a1 ? 1 : 0])));

    // Off the index: the next run looks at none of them.
    nextQuietSecond();
    const next = await askedDuring(() => runWithTime(120_000));
    expect(next.asked).toEqual([]);
    expect(next.run.expired).toEqual({ checked: 0, verified: 0, removed: 0, failed: 0 });
  });
});
