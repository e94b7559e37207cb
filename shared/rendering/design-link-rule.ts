// The rule every saved design meets: no link to a `javascript:`, `data:` or `vbscript:` URL (a link
// that runs code or carries its own page when followed). HTML designs are read as a browser reads
// them (an `href` in a comment or a script is no link); JSON designs link through their buttons' `url`.
// Links filled from placeholders are checked when each mail is rendered (shared/rendering/safe-url.ts).
import { scanHtml } from './html-scanner';
import { isRefusedLink, refusedLinkSchemes } from './safe-url';

const refusedList = `${refusedLinkSchemes.slice(0, -1).map((scheme) => `${scheme}:`).join(', ')} or ${refusedLinkSchemes.at(-1)}:`;

function message(attribute: string): string {
  return `The ${attribute} field must not link to ${refusedList} URLs.`;
}

/** Whether an HTML design has an `href` to a refused scheme. */
export function hasRefusedLink(html: string): boolean {
  if (!/href/i.test(html)) return false;
  let found = false;
  scanHtml(html, {
    tag(tag) {
      if (tag.kind !== 'open') return false;
      for (let i = 0; i < tag.attributes.length; i += 2) {
        if (tag.attributes[i] === 'href' && isRefusedLink(tag.attributes[i + 1] as string)) found = true;
      }
      return found;
    },
  });
  return found;
}

/** Whether a JSON value holds, under any `url` key at any depth, a link to a refused scheme. */
function hasRefusedUrl(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasRefusedUrl);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, inner]) => (key === 'url' && typeof inner === 'string' ? isRefusedLink(inner) : hasRefusedUrl(inner)));
}

/** A validation check for an HTML design field: the message naming the field, or undefined. */
export function unsafeDesignHtmlMessage(attribute: string): (html: string) => string | undefined {
  return (html) => (hasRefusedLink(html) ? message(attribute) : undefined);
}

/** The same for a JSON design field; text that is not JSON is left to the field's JSON rule. */
export function unsafeDesignJsonMessage(attribute: string): (json: string) => string | undefined {
  return (json) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return undefined;
    }
    return hasRefusedUrl(parsed) ? message(attribute) : undefined;
  };
}
