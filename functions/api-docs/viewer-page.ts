// The viewer's page: Swagger UI's files and its start script, all from this API. The Content-Security-
// Policy allows nothing from any other origin and no inline script; `data:` images are allowed because
// the viewer's own style sheet draws its icons as data: SVGs (without them its arrows and locks vanish).
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export const viewerPolicy = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page below `apiRoot` (`/api/`): it loads `docs/*` and the document at `openapi.json`. */
export function viewerPage(apiRoot: string): APIGatewayProxyStructuredResultV2 {
  const root = escapeAttribute(apiRoot);
  const body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Email campaign service API</title>
<link rel="icon" type="image/png" href="${root}docs/favicon-32x32.png">
<link rel="stylesheet" href="${root}docs/swagger-ui.css">
</head>
<body>
<div id="api-docs" data-spec="${root}openapi.json"></div>
<script src="${root}docs/swagger-ui-bundle.js"></script>
<script src="${root}docs/viewer.js"></script>
</body>
</html>
`;
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': viewerPolicy,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    },
    body,
  };
}
