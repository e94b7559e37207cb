// The local sink's event feed: events reach the feedback function one at a time, in the order they
// were published; a failed invocation is retried (as Lambda's asynchronous invoke retries), and an
// event that keeps failing is parked without holding up the ones behind it.
import { startSesEventFeed } from '../../infra/local/ses-event-feed';
import type { SesEventBridgeEvent } from '../../infra/local/ses-simulator';

const event = (id: string) => ({ id }) as SesEventBridgeEvent;

describe('SES event feed', () => {
  test('events are applied in order, one at a time', async () => {
    const applied: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const feed = startSesEventFeed({
      target: async ({ id }) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        // The first event takes longest: it must still be applied first.
        await new Promise((done) => setTimeout(done, id === 'a' ? 30 : 1));
        applied.push(id);
        running--;
      },
    });

    feed.publish([event('a'), event('b')]);
    feed.publish([event('c')]);
    await feed.idle();

    expect(applied).toEqual(['a', 'b', 'c']);
    expect(mostAtOnce).toBe(1);
    expect(feed.parked).toEqual([]);
  });

  test('a failed invocation is retried after its delay; one failing past its retries is parked and logged, and the next goes on', async () => {
    const attempts: string[] = [];
    const lines: string[] = [];
    const feed = startSesEventFeed({
      retryDelaysMs: [5, 5],
      log: (line) => lines.push(line),
      target: async ({ id }) => {
        attempts.push(id);
        const tries = attempts.filter((seen) => seen === id).length;
        if (id === 'flaky' && tries === 1) throw new Error('table unavailable');
        if (id === 'broken') throw new Error('always fails');
      },
    });

    feed.publish([event('flaky'), event('broken'), event('after')]);
    await feed.idle();

    expect(attempts).toEqual(['flaky', 'flaky', 'broken', 'broken', 'broken', 'after']);
    expect(feed.parked).toEqual([event('broken')]);
    expect(lines).toEqual([`SES event parked after 3 attempt(s) (always fails): ${JSON.stringify(event('broken'))}`]);
  });

  test('stop lets the queued events have one attempt each and takes no more', async () => {
    const attempts: string[] = [];
    const lines: string[] = [];
    const feed = startSesEventFeed({
      retryDelaysMs: [60_000],
      log: (line) => lines.push(line),
      target: async ({ id }) => {
        attempts.push(id);
        if (id === 'failing') throw new Error('down');
      },
    });
    feed.publish([event('failing'), event('queued')]);

    await feed.stop();
    feed.publish([event('late')]);

    expect(attempts).toEqual(['failing', 'queued']);
    expect(feed.parked).toEqual([event('failing')]);
    expect(lines).toEqual([expect.stringContaining('parked after 1 attempt(s) (down)'), 'SES sink stopping: 1 SES event(s) not published']);
  });

  test('stop cuts short a retry waiting for its delay: the event has its retry at once', async () => {
    const attempts: string[] = [];
    const feed = startSesEventFeed({
      retryDelaysMs: [60_000],
      log: () => undefined,
      target: async ({ id }) => {
        attempts.push(id);
        if (attempts.length === 1) throw new Error('down');
      },
    });
    feed.publish([event('retried')]);
    while (attempts.length === 0) await new Promise((done) => setImmediate(done));

    // Jest's timeout (30 s) is shorter than the delay: a stop that waited it out would fail here.
    await feed.stop();

    expect(attempts).toEqual(['retried', 'retried']);
    expect(feed.parked).toEqual([]);
  });
});
