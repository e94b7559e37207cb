// Owed confirmation mails that no booking of the mailer will reach: its booking failed when the contact
// was written, when the opt-in sender was verified, or when a run left mails for the next hour. The
// send watchdog's tick finds the account on the index of accounts owing mails and books the mailer;
// mails waiting for an unverified sender are not booked on every tick, mails past the hourly budget
// not before the next hour.
import { handler as optInHandler } from '../../functions/opt-in-mail/handler';
import { handler as watchdogHandler } from '../../functions/send-watchdog/handler';
import { expectOptInMails, optInMailJobName } from '../../shared/audience/opt-in-schedule';
import { optInDueKey } from '../../shared/contacts/opt-in-due';
import { insertContact } from '../../shared/contacts/repository';
import { resetConfig } from '../../shared/config';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { scheduledJobKey } from '../../shared/scheduling/keys';
import { claimLocalJob, completeLocalJob, dueLocalJobs, localScheduler } from '../../shared/scheduling/local-scheduler';
import { sendWatchdogIntervalMinutes } from '../../shared/scheduling/scheduled-job';
import { verifySender } from '../../shared/sender-verification/confirmation-service';
import { getItem } from '../../shared/table/records';
import { currentTime, resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { uniqueAddress } from '../support/senders';
import { contactFields, mailsTo, startSendingEnvironment, unverifiedSender, verifiedSender, type SendingEnvironment } from '../support/sending';
import { addOptInContact as addContact, optInAddress, optInType } from '../support/opt-in';

const address = (name: string) => optInAddress(name, 'recovery.example');

let env: SendingEnvironment;
/** Job names whose bookings fail, as when the scheduler cannot be reached. */
const unreachable = new Set<string>();
/** The clock of the code under test runs ahead of the wall clock by this much; it only moves forward. */
let clockAheadMs = 0;
const tickMs = sendWatchdogIntervalMinutes * 60_000;

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
  // The real local scheduler, but for the jobs a test makes unreachable.
  const book = localScheduler.scheduleAt.bind(localScheduler);
  jest.spyOn(localScheduler, 'scheduleAt').mockImplementation(async (job) => {
    if (unreachable.has(job.name)) throw new Error('The scheduler could not be reached');
    await book(job);
  });
  setClock(() => new Date(Date.now() + clockAheadMs));
});

afterAll(async () => {
  resetClock();
  await env.stop();
});

function passTime(ms: number): void {
  clockAheadMs += ms;
}

/** One run of the watchdog, a tick later than the last. */
async function tick(): Promise<void> {
  passTime(tickMs);
  await watchdogHandler({});
}

/** The account's mailer job as the scheduler holds it: when it is due, or undefined when none is booked. */
async function bookedRun(accountId: number): Promise<string | undefined> {
  const job = await getItem(scheduledJobKey(optInMailJobName(accountId)));
  return job ? String(job.due_at) : undefined;
}

/** Fire the account's mailer job if it is due now, as the scheduler would; the run's summary, or undefined when none was due. */
async function fireRun(accountId: number): Promise<unknown> {
  const name = optInMailJobName(accountId);
  const due = (await dueLocalJobs(currentTime(), 1_000)).find((job) => job.name === name);
  const job = due ? await claimLocalJob(due) : undefined;
  if (!job) return undefined;
  // Off the scheduler before the run, so a run that books itself again leaves that booking.
  await completeLocalJob(job);
  return optInHandler(JSON.parse(job.input) as { accountId: number });
}

async function mailedTo(emails: string[]): Promise<string[]> {
  return (await mailsTo(env.sink, emails)).map((mail) => mail.destination.to[0] as string).sort();
}

describe('the watchdog books the confirmation mailer', () => {
  it('for a pending contact whose booking failed: its mail goes after the next tick, and the account leaves the index once nothing is owed', async () => {
    const keys = await newAccount('Lost booking');
    const sender = await verifiedSender(keys.account_id, uniqueAddress());
    const typeId = await optInType(keys, sender.id);
    const email = address('lost');
    unreachable.add(optInMailJobName(keys.account_id));
    await addContact(keys, typeId, email);
    unreachable.delete(optInMailJobName(keys.account_id));
    expect(await bookedRun(keys.account_id)).toBeUndefined();

    await tick();
    expect(await bookedRun(keys.account_id)).toEqual(expect.any(String));
    expect(await fireRun(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
    expect(await mailedTo([email])).toEqual([email]);

    // Nothing owed: the ticks that follow book at most one run more (which finds nothing), then none.
    const runs: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      await tick();
      const run = await fireRun(keys.account_id);
      if (run) runs.push(run);
    }
    expect(runs).toEqual([{ sent: 0, settled: 0, waitingForSender: 0, deferred: 0 }]);
    expect(await getItem(optInDueKey(keys.account_id))).toBeUndefined();
    for (let i = 0; i < 3; i++) await tick();
    expect(await bookedRun(keys.account_id)).toBeUndefined();
    expect(await mailedTo([email])).toEqual([email]);
  });

  it('for a contact still being written when a run found nothing owed, once such a write must be over', async () => {
    const keys = await newAccount('Slow write');
    const sender = await verifiedSender(keys.account_id, uniqueAddress());
    const typeId = await optInType(keys, sender.id);
    // Marked as an add or an import marks before its writes; a run starts before the contact is written.
    await expectOptInMails(keys.account_id);
    expect(await optInHandler({ accountId: keys.account_id })).toEqual({ sent: 0, settled: 0, waitingForSender: 0, deferred: 0 });
    const email = address('slow');
    await insertContact(keys.account_id, contactFields(typeId, email), {}, undefined, { subscription_status: 'pending', confirmed_at: null });

    // No booking follows the write (it was lost): half an hour of ticks mails it once.
    const runs: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      await tick();
      const run = await fireRun(keys.account_id);
      if (run) runs.push(run);
    }
    expect(runs).toEqual([{ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 }]);
    expect(await mailedTo([email])).toEqual([email]);
    expect(await getItem(optInDueKey(keys.account_id))).toBeUndefined();
  });

  it('not on every tick for a mail waiting for its unverified sender, and once the sender is verified, even when that booking fails', async () => {
    const keys = await newAccount('Waiting sender');
    const sender = await unverifiedSender(keys.account_id, uniqueAddress());
    const typeId = await optInType(keys, sender.id);
    const email = address('waiting');
    await addContact(keys, typeId, email);
    expect(await fireRun(keys.account_id)).toEqual({ sent: 0, settled: 0, waitingForSender: 1, deferred: 0 });

    // Two hours of ticks: the mail still waits, and no run is booked for it.
    for (let i = 0; i < 24; i++) {
      await tick();
      expect(await bookedRun(keys.account_id)).toBeUndefined();
    }

    unreachable.add(optInMailJobName(keys.account_id));
    await verifySender(keys.account_id, sender.id, sender.from_email);
    unreachable.delete(optInMailJobName(keys.account_id));
    expect(await bookedRun(keys.account_id)).toBeUndefined();
    await tick();
    expect(await fireRun(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
    expect(await mailedTo([email])).toEqual([email]);
  });

  describe('past the hourly budget', () => {
    afterEach(() => {
      delete process.env.OPT_IN_MAILS_PER_HOUR;
      resetConfig();
    });

    it('books the mail left over for the next hour, not before, when the run could not book itself', async () => {
      process.env.OPT_IN_MAILS_PER_HOUR = '1';
      resetConfig();
      // Start early in an hour, so a few ticks fit before the next.
      const hour = 3_600_000;
      passTime(hour - (currentTime().getTime() % hour) + 60_000);
      const keys = await newAccount('Budget');
      const sender = await verifiedSender(keys.account_id, uniqueAddress());
      const typeId = await optInType(keys, sender.id);
      const emails = [address('first'), address('second')];
      for (const email of emails) await addContact(keys, typeId, email);

      unreachable.add(optInMailJobName(keys.account_id));
      expect(await fireRun(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 1 });
      unreachable.delete(optInMailJobName(keys.account_id));
      expect(await bookedRun(keys.account_id)).toBeUndefined();
      expect(await mailedTo(emails)).toHaveLength(1);

      // The rest of the hour: nothing is booked, nothing more is mailed.
      const nextHour = Math.floor(currentTime().getTime() / hour) * hour + hour;
      while (currentTime().getTime() + tickMs < nextHour) {
        await tick();
        expect(await bookedRun(keys.account_id)).toBeUndefined();
      }
      passTime(nextHour - currentTime().getTime());
      await tick();
      expect(await fireRun(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
      expect(await mailedTo(emails)).toEqual([...emails].sort());
    });
  });
});
