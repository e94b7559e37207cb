// The mail port: send one rendered message through SES v2 SendEmail (the sink locally, through the same
// client). API v2 because its simple content takes our own headers (List-Unsubscribe,
// List-Unsubscribe-Post) without building a raw MIME message.
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { awsClient, localEndpoint } from '../aws-clients';
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
  /**
   * The account's SES tenant (shared/tenants/): the mail counts toward that tenant's reputation, and
   * SES refuses it with SendingPausedException while the tenant is paused. Absent where the region
   * has no tenants or the sender's identity is not associated with the tenant.
   */
  tenantName?: string;
}

export const sesClient = awsClient(
  ({ region, sesEndpoint, sesRequestTimeoutMs }) =>
    new SESv2Client({
      region,
      // A call SES never answers is abandoned rather than holding the function until its timeout:
      // the recipient is then recorded as uncertain (never mailed again), and the run goes on.
      requestHandler: { connectionTimeout: 3_000, requestTimeout: sesRequestTimeoutMs, throwOnRequestTimeout: true },
      // One attempt, never an SDK retry: a send whose answer was lost may have been delivered, and a
      // retry would mail the recipient twice outside the delivery ledger's reach. The caller records
      // such an outcome as uncertain; throttles are retried by the callers with their own backoff.
      maxAttempts: 1,
      ...localEndpoint(sesEndpoint),
    }),
);

const specials = /[()<>[\]:;@\\,."]/;

// eslint-disable-next-line no-control-regex -- line breaks and the other controls a header must not carry
const controlCharacters = /[\u0000-\u001f\u007f]+/g;

/**
 * A mailbox as SES parses it: a display name with non-ASCII characters becomes a MIME encoded-word,
 * one with RFC 5322 specials (a comma, say) is quoted; a bare address is left alone. Line breaks
 * and other control characters become a space first, so the answer never ends the header early: a
 * sender name stored before names were checked for them cannot make SES refuse every message.
 */
export function formatMailbox(mailbox: string): string {
  const line = mailbox.replace(controlCharacters, ' ');
  const match = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(line);
  if (!match) return line.trim();
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
    ...(message.tenantName ? { TenantName: message.tenantName } : {}),
  });
  try {
    const result = await sesClient().send(command);
    if (!result.MessageId) throw new Error('SES accepted the message but returned no MessageId');
    return { messageId: result.MessageId };
  } catch (error) {
    throw classifyMailError(error);
  }
}
