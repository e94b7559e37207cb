// The content of SES's custom verification mail for sender addresses (our branded template, created by
// the stack: infra/stack/verification-template.ts). SES adds the verification link itself; the HTML
// stays within what SES allows in such a template (no scripts, no external images).

export interface VerificationMailContent {
  subject: string;
  html: string;
}

export function senderVerificationMailContent(): VerificationMailContent {
  return {
    subject: 'Confirm your sender address',
    html: [
      '<html><body style="font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.5">',
      '<h1 style="font-size:1.4rem">Confirm your sender address</h1>',
      '<p>This address was added as a sender address of an email campaign account.</p>',
      '<p>Follow the verification link in this mail to confirm that email may be sent from it. The link expires after 24 hours; ask for a new mail from the account if it has.</p>',
      '<p>If you did not ask for this, ignore this mail: the address will not be used.</p>',
      '</body></html>',
    ].join(''),
  };
}
