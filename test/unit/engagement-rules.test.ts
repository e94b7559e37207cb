// Machine opens and bot clicks: each rule of statistics/engagement-rules.ts on its own, and what stays a person's.
import { botClickRule, machineOpenRule, scannerUserAgents, type ClickFacts } from '../../shared/statistics/engagement-rules';

const desktopChrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphoneMail = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const gmailProxy = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';

/** A person's click: a GET from a browser, on a visible link, long after the send. */
const person: ClickFacts = { method: 'GET', userAgent: desktopChrome, hiddenLink: false, sinceSent: 60_000 };

describe('opens', () => {
  test("Apple Mail Privacy Protection's exact User-Agent is a machine's open; anything longer is not", () => {
    expect(machineOpenRule({ userAgent: 'Mozilla/5.0' })).toBe('apple-mail-privacy');
    expect([iphoneMail, 'Mozilla/5.0 ', 'mozilla/5.0'].map((userAgent) => machineOpenRule({ userAgent }))).toEqual([undefined, undefined, undefined]);
  });

  test('a listed scanner is a machine; browsers, mail apps, an empty or absent User-Agent and Gmail\'s image proxy are people', () => {
    expect(machineOpenRule({ userAgent: 'Barracuda Sentinel (EE)' })).toBe('known-scanner');
    expect(machineOpenRule({ userAgent: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' })).toBe('known-scanner');
    const people = [desktopChrome, iphoneMail, gmailProxy, '', undefined];
    expect(people.map((userAgent) => machineOpenRule({ userAgent }))).toEqual(people.map(() => undefined));
  });
});

describe('clicks', () => {
  test("a browser's GET on a visible link, long after the send, is a person's", () => {
    expect(botClickRule(person)).toBeUndefined();
    expect(botClickRule({ ...person, userAgent: iphoneMail, method: 'get' })).toBeUndefined();
    // The send time unknown (no ledger entry): no timing rule applies.
    expect(botClickRule({ ...person, sinceSent: undefined })).toBeUndefined();
  });

  test('a HEAD request is a bot', () => {
    expect(botClickRule({ ...person, method: 'HEAD' })).toBe('head-request');
  });

  test('the hidden link is followed by bots only', () => {
    expect(botClickRule({ ...person, hiddenLink: true })).toBe('hidden-link');
  });

  test('an empty or blank User-Agent is a bot; one not known (an SES event that does not say) is no rule', () => {
    expect(['', '  '].map((userAgent) => botClickRule({ ...person, userAgent }))).toEqual(['empty-user-agent', 'empty-user-agent']);
    expect(botClickRule({ ...person, userAgent: undefined })).toBeUndefined();
  });

  test('every listed scanner is a bot, matched anywhere in the User-Agent and in any case', () => {
    for (const { fragment } of scannerUserAgents) {
      expect({ fragment, rule: botClickRule({ ...person, userAgent: `Mozilla/5.0 (compatible; ${fragment.toUpperCase()}/1.0)` }) }).toEqual({ fragment, rule: 'known-scanner' });
    }
    // Apple's proxy fetches images, never links: its User-Agent on a click is no rule of its own.
    expect(botClickRule({ ...person, userAgent: 'Mozilla/5.0' })).toBeUndefined();
  });

  test('within 2 seconds of the send is a bot; 2 seconds or later is a person', () => {
    expect([0, 1_999, 2_000, 2_001].map((sinceSent) => botClickRule({ ...person, sinceSent }))).toEqual(['within-2-seconds', 'within-2-seconds', undefined, undefined]);
  });
});
