// One recipient's mail (recipientMail: token, links, render) in this tree beside another checkout's, in
// one process, interleaved: the send path's CPU per recipient before and after a change, same run.
//   npx tsx bench/recipient-mail-compare.ts <other checkout> [rounds=15] [mails per round=200]
// A library design (links, images, footer) at its own size and repeated to 100 KB; CPU time (user +
// system) per mail, median of the rounds; the ratio is this tree's over the other's.
import { resolve } from 'node:path';
import { resetConfig } from '../shared/config';
import { recipientMail } from '../shared/delivery/recipient-mail';
import { findDesignTemplate } from '../shared/templates/repository';

type RecipientMail = typeof recipientMail;

const other = resolve(process.argv[2] ?? '');
const rounds = Number(process.argv[3] ?? 15);
const perRound = Number(process.argv[4] ?? 200);

process.env.APP_RUNTIME = 'local';
process.env.TABLE_NAME = 'bench';
process.env.PUBLIC_BASE_URL = 'https://mail.example.com/links/api/';
process.env.TOKEN_SIGNING_KEY = 'a-bench-signing-key-of-enough-length-0123456789';
resetConfig();

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const mine = recipientMail;
  const theirs = ((await import(`${other}/shared/delivery/recipient-mail`)) as { recipientMail: RecipientMail }).recipientMail;
  ((await import(`${other}/shared/config`)) as { resetConfig: () => void }).resetConfig();
  const template = findDesignTemplate(2) ?? findDesignTemplate(1);
  if (!template) throw new Error('no library design');
  const html = template.html_code;
  const start = html.indexOf('>', html.search(/<body\b/i)) + 1;
  const end = html.search(/<\/body\s*>/i);
  const body = html.slice(start, end);
  const large = `${html.slice(0, start)}${body.repeat(Math.max(1, Math.floor((100 * 1024 - html.length) / body.length) + 1))}${html.slice(end)}`;
  const ref = { kind: 'single-send', accountId: 7, utr: '0b7c6a43-3d1e-4b0e-9a55-4f5bb0c1c2d3' } as const;
  for (const [name, designHtml] of [['library design', html], ['library design x 100 KB', large]] as const) {
    const content = { subject: 'News for ((first_name))', preheader: 'This week', designHtml, fromEmail: 'news@acme.example', replyTo: null, senderName: 'Acme', senderAddress: '1 Main Street', unsubscribeGroupId: 3 };
    const times: Record<'before' | 'after', number[]> = { before: [], after: [] };
    const sizes: Record<'before' | 'after', number> = { before: 0, after: 0 };
    const run = (which: 'before' | 'after', render: RecipientMail, round: number) => {
      const started = cpuMs();
      for (let i = 0; i < perRound; i++) {
        const mail = render(ref, content, { email: `reader-${round}-${i}@example.com`, contactId: i, fields: { first_name: 'Ada', last_name: 'Reader' } });
        sizes[which] = mail.html.length + (mail.text?.length ?? 0);
      }
      if (round > 0) times[which].push((cpuMs() - started) / perRound);
    };
    // Round 0 warms both up; the order alternates so neither always runs second.
    for (let round = 0; round <= rounds; round++) {
      if (round % 2 === 0) {
        run('before', theirs, round);
        run('after', mine, round);
      } else {
        run('after', mine, round);
        run('before', theirs, round);
      }
    }
    const before = median(times.before);
    const after = median(times.after);
    console.log(`${name} (${designHtml.length} bytes): before ${before.toFixed(3)} ms/mail, after ${after.toFixed(3)} ms/mail, ratio ${(after / before).toFixed(3)}; mail bytes ${sizes.before} -> ${sizes.after}`);
  }
}

void main();
