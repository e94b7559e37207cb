// What the send scripts set up before a send: an account's contacts imported in chunks of 500 and a
// confirmed sender, written straight to the table (the setup is not what they measure).
import { importContactRows } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-lookup';
import { addSender, confirmSenderAddress, type Sender } from '../../shared/senders/repository';

/** Import `emails` into the type, `parallel` chunks of 500 at a time. */
export async function importBenchContacts(accountId: number, typeId: number, emails: readonly string[], parallel = 1): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(emails.length / 500) }, (_, i) => emails.slice(i * 500, i * 500 + 500));
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
        const rows: ImportRow[] = chunk.map((email, index) => ({
          line: index + 2,
          fields: { contact_type_id: typeId, first_name: 'Bench', last_name: 'Reader', email, alt_email: null, country: '233', state: '', city: 'Springfield', address_line1: '', address_line2: '', state_province_region: '', postal_code: '' },
          customValues: {},
        }));
        await importContactRows(accountId, typeId, rows, new Set(['first_name', 'last_name', 'email', 'country', 'city']));
      }
    }),
  );
}

/** A sender at `fromEmail`, confirmed as its link would. */
export async function confirmedBenchSender(accountId: number, fromEmail: string): Promise<Sender> {
  const sender = await addSender(accountId, {
    from_name: 'Bench News',
    from_email: fromEmail,
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
  return sender;
}
