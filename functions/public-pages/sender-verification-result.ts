// Where SES's custom verification mail leads after the click (the template's success and failure
// redirects, infra/stack/verification-template.ts). SES has done the verifying by then: the pages only
// say so, read nothing and write nothing (the sender turns verified on its details or the periodic check).
import { publicOperation } from '../../shared/http/pipeline';
import { htmlPage } from './page';

export const showSenderVerified = publicOperation(
  async () =>
    htmlPage(200, {
      title: 'Sender address verified',
      paragraphs: ['Thank you. Your address is verified and can now be used to send email.'],
    }),
  { readBody: false },
);

export const showSenderVerificationFailed = publicOperation(
  async () =>
    htmlPage(400, {
      title: 'This link is invalid or has expired',
      paragraphs: ['The verification link is invalid or has expired. Ask for a new verification mail and use the link in it.'],
    }),
  { readBody: false },
);
