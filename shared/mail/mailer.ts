// The mail port: send one rendered message through SES v2 (the sink locally, through the same client).
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '../config';
import { classifyMailError } from './mail-errors';

export { MailSendingPausedError, MailThrottledError } from './mail-errors';

export interface MailHeader {
  name: string;
  value: string;
}

export interface OutgoingMail {
  /** `addr@example.com` or `Display Name <addr@example.com>`. */
  from: string;
  to: string[];
  replyTo?: string[];
  subject: string;
  html: string;
  text?: string;
  /** Extra headers such as `List-Unsubscribe`; SES adds the standard ones. */
  headers?: MailHeader[];
  configurationSetName?: string;
  /** Message tags; they come back on the SES events of this message. */
  tags?: MailHeader[];
}

let client: SESv2Client | undefined;

function ses(): SESv2Client {
  if (client) return client;
  const { region, sesEndpoint } = config();
  client = new SESv2Client({
    region,
    // One attempt: an SDK retry after a lost answer could mail a recipient twice, outside the
    // delivery ledger's reach. Throttling is retried by the callers, with their own backoff.
    maxAttempts: 1,
    // The sink accepts any signature but, like SES, wants one.
    ...(sesEndpoint ? { endpoint: sesEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return client;
}

/** Drop the cached client (the local runtime and tests change the endpoint). */
export function resetMailClient(): void {
  client?.destroy();
  client = undefined;
}

const specials = /[()<>[\]:;@\\,."]/;

/**
 * A mailbox as SES parses it: a display name with non-ASCII characters becomes a MIME encoded-word,
 * one with RFC 5322 specials (a comma, say) is quoted; a bare address is left alone.
 */
export function formatMailbox(mailbox: string): string {
  const match = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(mailbox);
  if (!match) return mailbox.trim();
  const name = (match[1] ?? '').replace(/^"(.*)"$/, '$1').replace(/\\(.)/g, '$1');
  const address = match[2] ?? '';
  if (name === '') return address;
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(name)) return `=?UTF-8?B?${Buffer.from(name, 'utf8').toString('base64')}?= <${address}>`;
  if (specials.test(name)) return `"${name.replace(/(["\\])/g, '\\$1')}" <${address}>`;
  return `${name} <${address}>`;
}

/** Send one message. Throws MailThrottledError or MailSendingPausedError when SES refuses for those reasons. */
export async function sendMail(message: OutgoingMail): Promise<{ messageId: string }> {
  const charset = 'UTF-8';
  const command = new SendEmailCommand({
    FromEmailAddress: formatMailbox(message.from),
    Destination: { ToAddresses: message.to },
    ...(message.replyTo?.length ? { ReplyToAddresses: message.replyTo.map(formatMailbox) } : {}),
    Content: {
      Simple: {
        Subject: { Data: message.subject, Charset: charset },
        Body: {
          Html: { Data: message.html, Charset: charset },
          ...(message.text !== undefined ? { Text: { Data: message.text, Charset: charset } } : {}),
        },
        ...(message.headers?.length ? { Headers: message.headers.map(({ name, value }) => ({ Name: name, Value: value })) } : {}),
      },
    },
    ...(message.configurationSetName ? { ConfigurationSetName: message.configurationSetName } : {}),
    ...(message.tags?.length ? { EmailTags: message.tags.map(({ name, value }) => ({ Name: name, Value: value })) } : {}),
  });
  try {
    const result = await ses().send(command);
    if (!result.MessageId) throw new Error('SES accepted the message but returned no MessageId');
    return { messageId: result.MessageId };
  } catch (error) {
    throw classifyMailError(error);
  }
}
