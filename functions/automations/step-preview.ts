// The public links of an automation step: `design_url` serves the step's design as HTML and `image`
// its preview. The links carry a signed token (account and step utr) instead of credentials, so
// they open in a browser or an <img> tag, cannot be forged, and never reveal another step.
import { config } from '../../shared/config';
import { verifyLinkToken } from '../../shared/legacy-tokens';
import { signToken } from '../../shared/signed-token';
import { getAutomationStep, type AutomationStep } from '../../shared/automations/steps';
import { RecordNotFound } from '../../shared/table/errors';
import { renderDesignHtml, type Design } from '../../shared/templates/design';
import { BLANK_TEMPLATE_ID, designByPreviewFile, findDesignTemplate } from '../../shared/templates/repository';
import { publicOperation } from '../../shared/http/pipeline';
import { raw } from '../../shared/http/reply';
import type { ApiRequest } from '../../shared/http/request';

const purpose = 'automation-step-preview';

/** The step's `design_url` and `image`, under the public base URL. No expiry: they are part of the record. */
export function stepLinks(accountId: number, stepUtr: string): { design_url: string; image: string } {
  const token = encodeURIComponent(signToken(purpose, { a: accountId, s: stepUtr }));
  const base = config().publicBaseUrl;
  return { design_url: `${base}automations/schedule/design/${token}`, image: `${base}automations/schedule/image/${token}` };
}

async function stepOfLink(request: ApiRequest): Promise<AutomationStep> {
  const check = verifyLinkToken(purpose, request.pathParameters.token);
  const accountId = check.valid ? check.claims.a : undefined;
  const stepUtr = check.valid ? check.claims.s : undefined;
  if (typeof accountId !== 'number' || typeof stepUtr !== 'string') throw new RecordNotFound('automation step link', 'token');
  return (await getAutomationStep(accountId, stepUtr)).step;
}

/** Only designs in the library's block format render; anything else falls back to the template. */
function asDesign(json: string): Design | undefined {
  try {
    const value = JSON.parse(json) as Partial<Design> | null;
    if (value && value.version === 1 && Array.isArray(value.blocks) && typeof value.theme === 'object' && value.theme !== null) return value as Design;
  } catch {
    // Not JSON: fall back below.
  }
  return undefined;
}

/** The step's design as HTML: its own HTML, else its own JSON design rendered, else its library template's. */
export function stepDesignHtml(step: AutomationStep): string {
  if (step.template_html) return step.template_html;
  const design = step.template_json ? asDesign(step.template_json) : undefined;
  if (design) {
    try {
      return renderDesignHtml(design, step.subject);
    } catch {
      // A block of the wrong shape: show the template rather than fail the page.
    }
  }
  return (findDesignTemplate(step.template_id) ?? findDesignTemplate(BLANK_TEMPLATE_ID))?.html_code ?? '';
}

/** The preview file to show: the step's `preview_img` when it names a library preview, else its template's. */
export function stepPreviewFile(step: AutomationStep): string | undefined {
  if (designByPreviewFile(step.preview_img)) return step.preview_img;
  return (findDesignTemplate(step.template_id) ?? findDesignTemplate(BLANK_TEMPLATE_ID))?.preview_image;
}

const designHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'private, no-cache',
  'x-content-type-options': 'nosniff',
  // The HTML is the account's own; served from the API's origin it must run no script and reach
  // nothing but images and inline styles, as a mail client would show it.
  'content-security-policy': "sandbox; default-src 'none'; img-src * data:; style-src 'unsafe-inline'; font-src * data:",
  'referrer-policy': 'no-referrer',
};

export const scheduleDesign = publicOperation(async ({ request }) => {
  const step = await stepOfLink(request);
  return raw({ statusCode: 200, headers: designHeaders, body: stepDesignHtml(step) });
});

export const scheduleImage = publicOperation(async ({ request }) => {
  const step = await stepOfLink(request);
  const file = stepPreviewFile(step);
  if (!file) throw new RecordNotFound('preview image', step.preview_img);
  // A redirect to the library's preview route, so the image is drawn and cached in one place.
  return raw({
    statusCode: 302,
    headers: { location: `${config().publicBaseUrl}assets/previews/${encodeURIComponent(file)}`, 'cache-control': 'private, max-age=300' },
    body: '',
  });
});
