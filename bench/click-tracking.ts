// What click tracking costs: (1) render CPU per recipient of a library design at the size limit, with
// and without its links tracked; (2) the click endpoint's latency on the local stack (`npm start`'s
// runtime, in process), through the HTTP gateway: a click that is counted (each request another
// recipient's first click: two marker claims, the send's counters, the link's item) and repeated
// clicks of one recipient (past the link's limit only the limit is read). Sequential requests, wall
// time per request, after a warm-up. Run: `npx tsx bench/click-tracking.ts [requests]` (200).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../infra/local/local-stack';
import { clickLinkBuilder, clickUrl } from '../shared/rendering/click-tracking';
import { openPixelUrl, recipientToken } from '../shared/public-links/recipient-links';
import { renderMail, type RenderInput } from '../shared/rendering/render';
import type { SendRef } from '../shared/ledger/send-ref';
import { createSingleSend } from '../shared/single-sends/repository';
import { findDesignTemplate } from '../shared/templates/repository';

const requests = Number(process.argv[2] ?? 200);
const renderRuns = 21;
const designBytes = 350 * 1024;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] as number;
const ms = (value: number) => Math.round(value * 100) / 100;

/** A library design with its body repeated up to the size (as bench/scenarios/render.ts builds it). */
function largeDesign(): string {
  const html = (findDesignTemplate(2) ?? findDesignTemplate(1))?.html_code;
  if (!html) throw new Error('no library design');
  const start = html.indexOf('>', html.search(/<body\b/i)) + 1;
  const end = html.search(/<\/body\s*>/i);
  const body = html.slice(start, end);
  return `${html.slice(0, start)}${body.repeat(Math.max(1, Math.floor((designBytes - html.length) / body.length) + 1))}${html.slice(end)}`;
}

/** CPU milliseconds (user + system) of one render, median of `renderRuns` after a warm-up. */
function renderCpuMs(input: RenderInput): number {
  for (let i = 0; i < 3; i++) renderMail(input);
  const times: number[] = [];
  for (let i = 0; i < renderRuns; i++) {
    const before = process.cpuUsage();
    renderMail(input);
    const used = process.cpuUsage(before);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

async function latencies(links: string[], status = 302): Promise<number[]> {
  const times: number[] = [];
  for (const link of links) {
    const started = performance.now();
    const response = await fetch(link, { redirect: 'manual' });
    await response.arrayBuffer();
    if (response.status !== status) throw new Error(`${link} answered ${response.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-click-bench-'));
  const stack = await startLocalStack({ port: 0, dynamoPort: 0, sesPort: 0, quiet: true, log: () => undefined, dataDir });
  try {
    const design = largeDesign();
    const links = (design.match(/<a\b/gi) ?? []).length;
    const base: RenderInput = {
      designHtml: design,
      subject: 'Hello ((first_name))',
      preheader: 'This week',
      fields: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', full_name: 'Ada Lovelace' },
      senderName: 'Acme News',
      senderAddress: '1 Main Street',
      links: { preferences: 'https://mail.example.com/api/public/preferences?token=t', oneClickUnsubscribe: 'https://mail.example.com/api/public/unsubscribe?token=t', openPixel: 'https://mail.example.com/api/public/open?token=t' },
    };
    const token = 'x'.repeat(160);
    const plain = renderCpuMs(base);
    const tracked = renderCpuMs({ ...base, links: { ...base.links, trackClick: clickLinkBuilder(token) } });

    const accountId = stack.demoAccount.account_id;
    const send = await createSingleSend(
      accountId,
      {
        template_id: 1, sender_id: 1, unsubscribe_group_id: 0, recipient_id: [], exclude_specific_recipient_id: [], single_send_name: 'Bench', subject: 'Bench', preheader: '',
        from_sender: 'bench@acme.example', reply_to: 'bench@acme.example', sender_name: 'Bench', sender_address: '1 Main Street', schedule_type: 1,
        schedule_date: '2099-01-01', schedule_time: '00:00:00', template_json: null, template_html: '<p>Bench</p>',
      },
      new Date('2099-01-01T00:00:00Z'),
    );
    const ref: SendRef = { kind: 'single-send', accountId, utr: send.utr };
    const target = 'https://shop.example/sale?from=mail';
    const linkFor = (email: string) => clickUrl(recipientToken(ref, email, null), target);
    const warmUp = Array.from({ length: 20 }, (_, i) => linkFor(`warm-${i}@example.com`));
    await latencies(warmUp);
    // The open pixel beside it (first, so the clicks are not the ones meeting a cold store), a counted
    // open per request likewise: the same store, the same moment.
    const opens = await latencies(Array.from({ length: requests }, (_, i) => openPixelUrl(recipientToken(ref, `reader-${i}@example.com`, null))), 200);
    const counted = await latencies(Array.from({ length: requests }, (_, i) => linkFor(`reader-${i}@example.com`)));
    const repeated = await latencies(Array.from({ length: requests }, () => linkFor('repeat@example.com')));
    const summary = (times: number[]) => ({ median: ms(median(times)), p90: ms(percentile(times, 90)), p99: ms(percentile(times, 99)) });

    console.log(
      JSON.stringify(
        {
          render_cpu_ms: { design_kb: Math.round(design.length / 1024), links, untracked: ms(plain), tracked: ms(tracked), runs: renderRuns },
          click_redirect_ms: {
            requests,
            counted: summary(counted),
            repeated_one_recipient: summary(repeated),
          },
          open_pixel_ms_counted: summary(opens),
        },
        null,
        2,
      ),
    );
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
