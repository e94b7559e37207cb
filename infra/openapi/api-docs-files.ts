// The files the api-docs function serves, written into one directory: the OpenAPI document generated
// from the routing table, and the Swagger UI viewer (the swagger-ui-dist package: no network, no CDN)
// with the small script that starts it. The stack copies this directory beside the function's bundle
// (infra/stack/lambda-bundling.ts) and the local gateway points the function at a copy of its own, so
// both serve the same files; none of them is in the 450 KB code bundle.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openApiDocument } from './openapi-document';

/** The viewer's files taken from swagger-ui-dist as they are (1.9 MB; 0.5 MB gzipped on the wire). */
export const viewerPackageFiles = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'LICENSE', 'NOTICE'] as const;

/**
 * Starts the viewer on the document named by the page (`data-spec`): a file of its own, because the
 * page's Content-Security-Policy allows scripts from the API itself only, never inline. The online
 * validator badge is off, so the viewer makes no request beyond the API.
 */
export const viewerScript = `window.addEventListener('load', function () {
  var root = document.getElementById('api-docs');
  window.ui = SwaggerUIBundle({ url: root.getAttribute('data-spec'), dom_id: '#api-docs', deepLinking: true, validatorUrl: null });
});
`;

/** The directory's name beside the function's bundle (`/var/task/api-docs` on Lambda). */
export const apiDocsDirectoryName = 'api-docs';

/** Write the document and the viewer's files into `directory` (created if need be); returns it. */
export function writeApiDocsFiles(directory: string): string {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'openapi.json'), `${JSON.stringify(openApiDocument())}\n`);
  const packageRoot = dirname(require.resolve('swagger-ui-dist/package.json'));
  for (const file of viewerPackageFiles) copyFileSync(join(packageRoot, file), join(directory, file === 'LICENSE' || file === 'NOTICE' ? `swagger-ui-${file}.txt` : file));
  writeFileSync(join(directory, 'viewer.js'), viewerScript);
  return directory;
}
