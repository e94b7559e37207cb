// A tenant's design must not stall delivery: rendering (preheader, footer, pixel) and the text part
// take time linear in the design's size, whatever the design holds. Each case is a 300 KB design
// built to make backtracking regular expressions (unclosed tags, comments and elements, nested
// preheader spans, runs of `<`) go quadratic or cubic; linear code renders one in milliseconds.
//
// The guard is a work budget enforced by `vm`'s timeout, not a measured duration: Jest's per-test
// timeout cannot stop a synchronous test (the test completes, however long it took, and passes),
// but `vm`'s watchdog terminates the running code, even inside a regular expression. Super-linear
// code does not finish a case within the budget (the regexes this replaced needed from 2.5 s to hours
// per case, on the function the case is aimed at); linear code needs a few milliseconds, so even a
// busy machine stays far inside it.
import { runInNewContext } from 'node:vm';
import { htmlToText } from '../../shared/rendering/html-text';
import { renderMail, type RenderInput } from '../../shared/rendering/render';

const size = 300 * 1024;
const budgetMs = 2_000;

/** Runs `work` under the budget: throws "Script execution timed out" when the budget runs out. */
function withinBudget<T>(work: () => T): T {
  return runInNewContext('work()', { work }, { timeout: budgetMs }) as T;
}

const repeatedTo = (unit: string, prefix = '', suffix = '') => `${prefix}${unit.repeat(Math.ceil(size / unit.length))}${suffix}`;

function input(designHtml: string): RenderInput {
  return {
    designHtml,
    subject: 'News for ((first_name))',
    preheader: 'This week, ((first_name))',
    fields: { first_name: 'Ada' },
    senderName: 'Acme News',
    senderAddress: '1 Main Street, Springfield',
    links: {
      preferences: 'https://mail.example.com/api/public/preferences?token=abc',
      oneClickUnsubscribe: 'https://mail.example.com/api/public/unsubscribe?token=abc',
      openPixel: 'https://mail.example.com/api/public/open?token=abc',
    },
  };
}

const adversarial: [string, string][] = [
  ['unclosed <a href="" tags', repeatedTo('<a href=""')],
  ['unclosed preheader <span tags', repeatedTo('<span class="preheader"')],
  ['preheader spans that are never closed', repeatedTo('<span class="preheader">', '<body>')],
  ['nested preheader spans and links, never closed', repeatedTo('<span class="preheader"><a href="">', '<body>')],
  ['unclosed comments', repeatedTo('<!--x')],
  ['unclosed <style> elements', repeatedTo('<style>x')],
  ['unclosed <head> elements', repeatedTo('<head>x')],
  ['a run of <', repeatedTo('<')],
  ['unclosed <img tags', repeatedTo('<img')],
  ['unclosed <body tags', repeatedTo('<body')],
  ['links that are never closed', repeatedTo('<a href="">')],
  ['deeply nested lists', repeatedTo('<ul><li>x')],
  // Each `</a>` ends the link inside a hidden element opened in it; the element's end used to bring
  // the link back, and each next end rewrote all of its label again (quadratic: 12 s for 350 KB).
  ['a link ended inside a hidden element it holds, again and again', repeatedTo('x <span hidden></a></span>', '<a href="https://x.example/">')],
  ['entity-like runs', repeatedTo('&#x1234567890abcdef&amp&#123456789012&abcdefghijklmnopqrstuvwxyz0123456789')],
];

describe('a 300 KB adversarial design renders within a linear work budget', () => {
  test.each(adversarial)('%s: preheader, footer and pixel (renderMail)', (_, design) => {
    const mail = withinBudget(() => renderMail(input(design)));
    expect(mail.html.length).toBeGreaterThanOrEqual(design.length);
  });

  // Every link tracked (here even `href=""`), in the scan that writes the text: up to the limit of tracked links.
  test.each(adversarial)('%s: with its links tracked', (_, design) => {
    const base = input(design);
    const mail = withinBudget(() => renderMail({ ...base, links: { ...base.links, trackClick: () => 'https://t.example/c?u=x' } }));
    expect(mail.html.length).toBeGreaterThanOrEqual(design.length);
  });

  test.each(adversarial)('%s: the text part (htmlToText)', (_, design) => {
    const text = withinBudget(() => htmlToText(design));
    // The text is never much larger than the design (no indentation growing with depth, say).
    expect(text.length).toBeLessThan(2 * design.length);
  });
});
