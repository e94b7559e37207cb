// Templates and dynamic content: the design library, the placeholder names, and the library's preview images.
import { createHash } from 'node:crypto';
import { dynamicContentNames } from '../../shared/rendering/dynamic-content';
import { RecordNotFound } from '../../shared/table/errors';
import { designByPreviewFile, listDesignTemplates } from '../../shared/templates/repository';
import { accountOperation, publicOperation } from '../../shared/http/pipeline';
import { ok, raw } from '../../shared/http/reply';
import { renderPreviewSvg } from './preview-image';

export const listTemplates = accountOperation(async () => ok({ templates: listDesignTemplates() }));

export const listDynamicContent = accountOperation(async () => ok({ contents: dynamicContentNames }));

interface PreviewImage {
  svg: string;
  etag: string;
}

const previews = new Map<string, PreviewImage>();

/** Only plain names: whatever else a path parameter holds (`..`, slashes, encodings) is not a preview. */
const previewFilePattern = /^[a-z0-9][a-z0-9-]*\.svg$/;

function previewImage(file: string): PreviewImage | undefined {
  if (!previewFilePattern.test(file)) return undefined;
  const cached = previews.get(file);
  if (cached) return cached;
  const found = designByPreviewFile(file);
  if (!found) return undefined;
  const svg = renderPreviewSvg(found.name, found.design, found.isBlank);
  const image = { svg, etag: `"${createHash('sha256').update(svg).digest('base64url').slice(0, 27)}"` };
  previews.set(file, image);
  return image;
}

/** `If-None-Match` may list several tags, weak ones included (RFC 9110 compares them weakly here). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}

const previewHeaders = {
  'content-type': 'image/svg+xml; charset=utf-8',
  // Names are stable but a redeploy may redraw a preview: cache for a day and revalidate by ETag.
  'cache-control': 'public, max-age=86400',
  'x-content-type-options': 'nosniff',
  // An SVG opened directly is a document: allow it no scripts and no fetches.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
};

export const previewImageFile = publicOperation(async ({ request }) => {
  const file = request.pathParameters.file ?? '';
  const image = previewImage(file);
  if (!image) throw new RecordNotFound('preview image', file);
  const headers = { ...previewHeaders, etag: image.etag };
  if (matchesEtag(request.headers['if-none-match'], image.etag)) return raw({ statusCode: 304, headers, body: '' });
  return raw({ statusCode: 200, headers, body: image.svg });
});
