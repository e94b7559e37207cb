// The api-docs function's files (infra/openapi/api-docs-files.ts writes them): read once per container,
// served by exact name only, gzipped for clients that accept it (the viewer's script is 1.7 MB).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { optionalEnv } from '../../shared/config';

/** Where the files are: beside the bundle on Lambda; the local gateway names its own copy. */
export const apiDocsDirEnvName = 'API_DOCS_DIR';

const mediaTypes: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
};

export interface ServedFile {
  content: Buffer;
  gzipped: Buffer;
  mediaType: string;
}

let files: Map<string, ServedFile> | undefined;

function directory(): string {
  const configured = optionalEnv(apiDocsDirEnvName);
  if (configured) return configured;
  // Bundled, this module is /var/task/index.js and the files are in /var/task/api-docs.
  return join(__dirname, 'api-docs');
}

/** Every file of the directory by name; the set is fixed at cold start, so no name reaches the file system. */
function load(): Map<string, ServedFile> {
  const dir = directory();
  if (!existsSync(dir)) throw new Error(`The API docs files are missing: ${dir}`);
  const loaded = new Map<string, ServedFile>();
  for (const name of readdirSync(dir)) {
    const mediaType = mediaTypes[extname(name)];
    if (!mediaType) continue;
    const content = readFileSync(join(dir, name));
    loaded.set(name, { content, gzipped: gzipSync(content), mediaType });
  }
  return loaded;
}

/** One of the files by its exact name, or undefined. */
export function servedFile(name: string): ServedFile | undefined {
  files ??= load();
  return files.get(name);
}
