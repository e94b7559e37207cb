// The pace of SES's control-plane calls (identities, custom verification mail, tenants): at most one
// call per slot of 1/rate seconds for the whole stage, each slot taken by one conditional write in the
// table, so every container of every function shares one budget. SES throttles these calls per AWS
// account and region, far below the send rate (SendCustomVerificationEmail: 1 a second).
import { positiveNumberEnv } from '../config';
import { currentTime } from '../time';
import { sesControlSlotKey } from './keys';
import { countRequestBelow } from './repository';

/** Control-plane calls a second for the stage: SES's documented 1 a second, unless SES_CONTROL_RATE says less (stages sharing an account) or more. */
export const defaultSesControlRate = 1;

/** How long a call waits for a slot at most: past it, the plane is busy and the caller goes on without the call. */
export const defaultMaxWaitMs = 5_000;

export interface PacerClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Where slots are taken: true when this caller took the slot, false when someone had it already. */
export interface SlotStore {
  take(slot: number, expiresAtSeconds: number): Promise<boolean>;
}

/** No slot was free within the caller's wait: treated like SES's own throttling (TooManyRequestsException). */
export class ControlPlaneBusyError extends Error {
  constructor(readonly waitedMs: number) {
    super(`No SES control-plane slot was free within ${waitedMs} ms`);
    this.name = 'ControlPlaneBusyError';
  }
}

export interface ControlPacer {
  /** Wait for the caller's own slot; ControlPlaneBusyError when none is free within `maxWaitMs`. */
  take(maxWaitMs?: number): Promise<void>;
}

export interface PacerOptions {
  ratePerSecond: number;
  clock: PacerClock;
  store: SlotStore;
  maxWaitMs?: number;
}

// A slot's item outlives its slot by a minute, then TTL removes it; a past slot is never taken again.
const slotLifetimeSeconds = 60;

/**
 * A pacer over slots of 1/rate seconds: a caller tries the slot of now, then each later one within its
 * wait, and sleeps until the start of the one it took. Slots seen taken are remembered, so a busy
 * container does not try them again; a take costs at most `maxWaitMs × rate` failed writes.
 */
export function controlPacer({ ratePerSecond, clock, store, maxWaitMs = defaultMaxWaitMs }: PacerOptions): ControlPacer {
  if (!(ratePerSecond > 0)) throw new Error(`A control-plane rate must be positive, got ${ratePerSecond}`);
  const slotMs = 1000 / ratePerSecond;
  let lastSeenTaken = -Infinity;
  return {
    async take(wait = maxWaitMs) {
      const now = clock.now();
      const lastSlot = Math.floor((now + wait) / slotMs);
      for (let slot = Math.max(Math.floor(now / slotMs), lastSeenTaken + 1); slot <= lastSlot; slot++) {
        const mine = await store.take(slot, Math.ceil(((slot + 1) * slotMs) / 1000) + slotLifetimeSeconds);
        lastSeenTaken = Math.max(lastSeenTaken, slot);
        if (!mine) continue;
        const until = slot * slotMs - clock.now();
        // Timers cannot wait less than a millisecond; a shorter wait is not worth one.
        if (until >= 1) await clock.sleep(until);
        return;
      }
      throw new ControlPlaneBusyError(wait);
    },
  };
}

/** The stage's slots in the table: one conditional ADD per slot tried. */
export const tableSlots: SlotStore = {
  async take(slot, expiresAtSeconds) {
    return (await countRequestBelow(sesControlSlotKey(slot), 1, expiresAtSeconds)) !== undefined;
  },
};

const realClock: PacerClock = {
  now: () => currentTime().getTime(),
  sleep: (ms) => new Promise((resume) => setTimeout(resume, ms)),
};

let pacer: ControlPacer | undefined;
let clockInUse: PacerClock = realClock;

/** The container's pacer on the table's slots, at SES_CONTROL_RATE calls a second. */
export function sesControlPacer(): ControlPacer {
  pacer ??= controlPacer({ ratePerSecond: positiveNumberEnv('SES_CONTROL_RATE', defaultSesControlRate), clock: clockInUse, store: tableSlots });
  return pacer;
}

/** Forget the pacer (tests change the rate, or pace on a simulated clock). */
export function resetSesControlPacer(clock: PacerClock = realClock): void {
  pacer = undefined;
  clockInUse = clock;
}

/** What a paced client needs of an SDK client: SESv2Client, or a fake in tests. */
export interface CommandClient {
  send(command: object): Promise<unknown>;
}

/** The client with every call held for its slot of the stage's control-plane pace. */
export function pacedCalls(client: () => CommandClient): () => CommandClient {
  const paced: CommandClient = {
    async send(command) {
      await sesControlPacer().take();
      return client().send(command);
    },
  };
  return () => paced;
}
