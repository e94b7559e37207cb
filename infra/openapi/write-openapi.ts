// `npm run openapi [-- <file>]`: writes the OpenAPI document of the routing table (default openapi.json)
// and the API reference rendered from it (docs/api-reference.md, checked by test/infra/openapi.test.ts).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { apiReference, apiReferenceFile } from './api-reference';
import { openApiDocument } from './openapi-document';

const target = resolve(process.argv[2] ?? 'openapi.json');
const document = openApiDocument({ serverUrl: process.env.API_SERVER_URL });
writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${Object.keys(document.paths as object).length} paths to ${target}`);
writeFileSync(apiReferenceFile, apiReference());
console.log(`wrote ${apiReferenceFile}`);
