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

export interface PageContent {
  title: string;
  /** Paragraphs of plain text; escaped here. */
  paragraphs: string[];
}

export function htmlPage(statusCode: number, content: PageContent): Reply {
  const body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(content.title)}</title>
<style>body{font-family:Arial,Helvetica,sans-serif;color:#222;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}h1{font-size:1.5rem}</style>
</head>
<body>
<main>
<h1>${escapeHtml(content.title)}</h1>
${content.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
</main>
</body>
</html>
`;
  return raw({ statusCode, headers: { ...pageHeaders }, body });
}
