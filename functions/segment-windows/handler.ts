// The scheduler's target that slides an account's `in last days` segment windows once a day: it
// starts the background job that moves the contacts whose latest open or click left a window, and
// books the next day's run (shared/audience/engagement-windows.ts).
import { eventHandler } from '../../shared/event-entry';
import { startWindowSlide } from '../../shared/audience/engagement-windows';

interface SlidePayload {
  accountId?: unknown;
  from?: unknown;
}

export const handler = eventHandler(async (payload: SlidePayload) => {
  const accountId = Number(payload.accountId);
  const from = typeof payload.from === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(payload.from) ? payload.from : undefined;
  if (!Number.isSafeInteger(accountId) || accountId < 1 || from === undefined) throw new Error(`Not a window slide: ${JSON.stringify(payload)}`);
  return { job: (await startWindowSlide(accountId, from)) ?? null };
});
