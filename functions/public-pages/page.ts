// The shell of every public page: a small, self-contained HTML document with headers that keep the
// signed token in its URL out of caches, referrers and frames.
import type { Reply } from '../../shared/http/reply';
import { raw } from '../../shared/http/reply';
import { escapeHtml } from '../../shared/mail/templates/html';

const pageHeaders = {
  'content-type': 'text/html; charset=utf-8',
  // The URL carries a token: never cache the page or send the URL on as a referrer.
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
};

// Plain CSS, no scripts or external files: the pages must work in any mail client's browser.
const styles = [
  'body{font-family:Arial,Helvetica,sans-serif;color:#222;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5}',
  'h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}',
  'ul.choices{list-style:none;padding:0;margin:0}',
  'ul.choices li{border:1px solid #ccc;border-radius:6px;padding:.75rem 1rem;margin:.75rem 0}',
  'ul.choices h3{font-size:1rem;margin:0}ul.choices p{margin:.25rem 0}',
  '.state{font-size:.9rem;color:#555}.state strong{color:#222}',
  'button{font:inherit;padding:.5rem 1rem;min-height:44px;border-radius:6px;border:1px solid #555;background:#f4f4f4;color:#222;cursor:pointer;margin-top:.5rem}',
  'button:focus{outline:3px solid #1a5fb4;outline-offset:2px}',
  'button.primary{background:#b3261e;border-color:#b3261e;color:#fff}',
  'form{margin:0}',
].join('');

/** A page whose main content is already HTML (every piece of text in it escaped by the caller). */
export function htmlFrame(statusCode: number, title: string, mainHtml: string): Reply {
  const body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${mainHtml}
</main>
</body>
</html>
`;
  return raw({ statusCode, headers: { ...pageHeaders }, body });
}

export interface PageContent {
  title: string;
  /** Paragraphs of plain text; escaped here. */
  paragraphs: string[];
}

export function htmlPage(statusCode: number, content: PageContent): Reply {
  return htmlFrame(statusCode, content.title, content.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n'));
}
