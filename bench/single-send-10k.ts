// Measures how long the local stack (`npm start`'s runtime, in process) takes to dispatch and deliver
// one immediate single send to 10,000 contacts: from the API's create call to the send's status 3,
// with every mail in the SES sink. Run: `npx tsx bench/single-send-10k.ts [recipients]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../infra/local/local-stack';
import { drainSink } from './lib/sink-drain';
import { addContactType } from '../shared/contact-types/repository';
import { importContactRows } from '../shared/contacts/contact-service';
import type { ImportRow } from '../shared/contacts/import-writes';
import { addSender, confirmSenderAddress } from '../shared/senders/repository';
import { getSingleSend } from '../shared/single-sends/repository';
import { addUnsubscribeGroup } from '../shared/suppressions/unsubscribe-groups';

const recipients = Number(process.argv[2] ?? 10_000);
const seconds = (ms: number) => Math.round(ms / 100) / 10;

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-'));
  const stack = await startLocalStack({ port: 0, dynamoPort: 0, sesPort: 0, quiet: true, log: () => undefined, dataDir, inMemory: true });
  try {
    const accountId = stack.demoAccount.account_id;
    const headers = { PublicKey: stack.demoAccount.public_key, SecretKey: stack.demoAccount.secret_key };

    // Setup (not measured): a contact type of `recipients` contacts, a verified sender, a group.
    const setupStarted = Date.now();
    const type = await addContactType(accountId, 'Bench');
    // Through the CSV import's write path, 500 rows a call, 4 calls at a time: a contacts/add per
    // contact (six round trips each) made the setup of a 100,000-recipient run take longer than the send.
    const emails = Array.from({ length: recipients }, (_, i) => `bench-${String(i).padStart(6, '0')}@example.com`);
    const chunks = Array.from({ length: Math.ceil(recipients / 500) }, (_, i) => emails.slice(i * 500, i * 500 + 500));
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
          const rows: ImportRow[] = chunk.map((email, index) => ({
            line: index + 2,
            fields: { contact_type_id: type.id, first_name: 'Bench', last_name: 'Reader', email, alt_email: null, country: '233', state: '', city: 'Springfield', address_line1: '', address_line2: '', state_province_region: '', postal_code: '' },
            customValues: {},
          }));
          await importContactRows(accountId, type.id, rows, new Set(['first_name', 'last_name', 'email', 'country', 'city']));
        }
      }),
    );
    const sender = await addSender(accountId, {
      from_name: 'Bench News',
      from_email: 'bench@acme.example',
      reply_to_email: 'support@acme.example',
      country_id: 233,
      state_id: null,
      city_id: null,
      zip_code: null,
      company_address: '1 Main Street',
      company_address2: null,
      nickname: 'Bench',
    });
    await confirmSenderAddress(accountId, sender.id, sender.from_email);
    const group = await addUnsubscribeGroup(accountId, { group_name: 'Bench', description: 'Bench', is_display: 1 });
    const setupMs = Date.now() - setupStarted;

    // Measured: create through the API -> scheduler -> dispatcher -> queue -> deliverer -> sink -> status 3.
    const sink = drainSink(/^bench-\d{6}@example\.com$/);
    const started = Date.now();
    const form = new URLSearchParams({
      template_id: '2',
      sender_id: String(sender.id),
      unsubscribe_group_id: String(group.id),
      single_send_name: 'Bench',
      subject: 'Hello ((first_name))',
      preheader: 'Bench run',
      'recipient_id[0]': `contacts_${type.id}`,
      schedule_type: '0',
    });
    const created = await fetch(`${stack.urls.api}single/send/create`, { method: 'POST', headers, body: form });
    const { message } = (await created.json()) as { message: { utr: string } };
    let firstMailMs: number | undefined;
    let dispatchedMs: number | undefined;
    for (;;) {
      const send = await getSingleSend(accountId, message.utr);
      if (firstMailMs === undefined && send.triggered > 0) firstMailMs = Date.now() - started;
      if (dispatchedMs === undefined && send.status >= 2 && send.triggered >= recipients * 0.999) dispatchedMs = Date.now() - started;
      if (send.status === 3) break;
      if (Date.now() - started > 30 * 60_000) throw new Error(`not complete after 30 minutes: ${JSON.stringify(send)}`);
      await new Promise((done) => setTimeout(done, 200));
    }
    const totalMs = Date.now() - started;
    const send = await getSingleSend(accountId, message.utr);
    const inSink = sink.stop();
    const result = {
      recipients,
      setup_seconds: seconds(setupMs),
      first_mail_seconds: seconds(firstMailMs ?? totalMs),
      complete_seconds: seconds(totalMs),
      mails_per_second: Math.round(recipients / (totalMs / 1000)),
      triggered: send.triggered,
      delivered: send.delivered,
      distinct_addresses_in_sink: inSink.addresses.size,
      sink_mails: inSink.mails,
      status: send.status,
    };
    console.log(JSON.stringify(result, null, 2));
    if (send.triggered !== recipients || inSink.addresses.size !== recipients) process.exitCode = 1;
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
