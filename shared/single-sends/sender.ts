// The sender details a single send copies when it is created or updated: its from and reply-to
// addresses, its name and its postal address as one line (the footer and `((sender_address))` use it).
import { citiesOfState, findCountry, findState } from '../reference-data/repository';
import type { Sender } from '../senders/repository';
import type { SingleSendContent } from './record';

export type SenderDetails = Pick<SingleSendContent, 'from_sender' | 'reply_to' | 'sender_name' | 'sender_address'>;

/**
 * `1 Main Street, Suite 100, Los Angeles, California, 90001, United States`: company address lines,
 * city, state, zip code and country, each only when present, in the order a postal address reads.
 */
export async function senderPostalAddress(sender: Sender): Promise<string> {
  const state = sender.state_id === null ? undefined : await findState(sender.state_id);
  const city = sender.city_id === null || sender.state_id === null ? undefined : (await citiesOfState(sender.state_id))?.find((candidate) => candidate.id === sender.city_id);
  const country = await findCountry(sender.country_id);
  return [sender.company_address, sender.company_address2, city?.name, state?.name, sender.zip_code, country?.name]
    .map((part) => (part ?? '').trim())
    .filter((part) => part !== '')
    .join(', ');
}

export async function senderDetails(sender: Sender): Promise<SenderDetails> {
  return {
    from_sender: sender.from_email,
    reply_to: sender.reply_to_email,
    sender_name: sender.from_name,
    sender_address: await senderPostalAddress(sender),
  };
}
