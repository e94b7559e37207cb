// Which opens are a machine's and which clicks a bot's: the one place the rules live, each naming its
// source. A rule is a name, a source and a test on what the request showed; add one to a list below.
// Machine opens and bot clicks are counted apart from people's (statistics/event-counts.ts).

/** What the pixel's request showed. */
export interface OpenFacts {
  /** The User-Agent header as received; undefined when the request carried none. */
  userAgent: string | undefined;
}

/** What a click showed: the request, the link it followed, and when, beside when the mail was sent. */
export interface ClickFacts {
  method: string;
  /** The User-Agent as received (a request without the header sent an empty one); undefined when not known (an SES event that does not say). */
  userAgent?: string;
  /** Whether the click followed the hidden link every tracked mail carries (rendering/click-tracking.ts). */
  hiddenLink: boolean;
  /** Milliseconds from the mail being sent to the click; undefined when that is not known. */
  sinceSent?: number;
}

interface Rule<Facts> {
  name: string;
  test(facts: Facts): boolean;
}

/**
 * User-Agent fragments of known link scanners, prefetchers and scripted clients, matched anywhere in
 * the header, case-insensitively. A scanner that presents an ordinary browser's User-Agent (Microsoft
 * Defender Safe Links, Mimecast and Proofpoint mostly do) is caught by the other click rules instead:
 * the hidden link, HEAD, the first 2 seconds, an empty User-Agent.
 */
export const scannerUserAgents: readonly { fragment: string; source: string }[] = [
  // Security gateways that name themselves.
  { fragment: 'Barracuda', source: 'Barracuda Email Security fetches as "Barracuda Sentinel (EE)": JayBizzle/Crawler-Detect#552; Braze, "Bot filtering"' },
  { fragment: 'Proofpoint', source: 'Proofpoint URL Defense fetches that name themselves: "Bot clicks from security scanners: a field guide" (live-direct-marketing.online)' },
  // Gmail's own fetchers that are not a person reading: content sampling of links, and the open it
  // triggers on arrival (GoogleImageProxy, which fetches when a person opens the mail, is not listed).
  { fragment: 'Gmail-content-sampling', source: 'mssola/user_agent#71; Stack Overflow 63184772 "Gmail following links"' },
  { fragment: 'Edge/12.246 Mozilla/5.0', source: 'Gmail opens right after delivery: mautic/mautic#10245; ankane/ahoy_email#139; GMass, "False opens in Gmail"' },
  // Link previews of chat and social apps: the link was pasted or forwarded, not followed.
  { fragment: 'Slackbot-LinkExpanding', source: 'Slack, https://api.slack.com/robots' },
  { fragment: 'facebookexternalhit', source: 'Meta, "The Facebook Crawler" (developers.facebook.com/docs/sharing/webmasters/web-crawlers)' },
  { fragment: 'Twitterbot', source: 'X, "Cards: getting started" (developer.x.com)' },
  { fragment: 'LinkedInBot', source: 'LinkedIn, "Make your website content shareable" (linkedin.com/help/linkedin/answer/46687)' },
  { fragment: 'Snap URL Preview Service', source: 'Snap, https://developers.snap.com/robots' },
  // Search crawlers, and headless or scripted clients: no person behind them.
  { fragment: 'Googlebot', source: 'Google, "Googlebot" (developers.google.com/search/docs/crawling-indexing/googlebot)' },
  { fragment: 'bingbot', source: 'Microsoft, "Which crawlers does Bing use?" (bing.com/webmasters/help)' },
  { fragment: 'HeadlessChrome', source: 'Chrome for Developers, "Chrome Headless mode" (the User-Agent names HeadlessChrome)' },
  { fragment: 'python-requests', source: 'Suped, "How can I identify bot user agents in my email click data?"' },
  { fragment: 'aiohttp', source: 'Suped, "How can I identify bot user agents in my email click data?"' },
  { fragment: 'curl/', source: 'Suped, "How can I identify bot user agents in my email click data?"' },
  { fragment: 'Wget/', source: 'Suped, "How can I identify bot user agents in my email click data?"' },
  { fragment: 'Apache-HttpClient', source: 'Suped, "How can I identify bot user agents in my email click data?"' },
  { fragment: 'Go-http-client', source: 'Go net/http default User-Agent (pkg.go.dev/net/http)' },
  { fragment: 'libwww-perl', source: 'Perl LWP default User-Agent (metacpan.org/pod/LWP::UserAgent)' },
];

const scannerFragments = scannerUserAgents.map((entry) => entry.fragment.toLowerCase());

/** Whether the User-Agent is one of a known scanner, prefetcher or scripted client. */
export function isKnownScanner(userAgent: string | undefined): boolean {
  if (!userAgent) return false;
  const lower = userAgent.toLowerCase();
  return scannerFragments.some((fragment) => lower.includes(fragment));
}

/** The User-Agent Apple Mail Privacy Protection's proxy fetches every image with, on delivery. */
export const appleMailPrivacyUserAgent = 'Mozilla/5.0';

/** A click this soon after its mail was sent is a scanner's: nobody has read the mail yet. */
export const botClickWindowMs = 2_000;

const openRules: readonly Rule<OpenFacts>[] = [
  // Apple Mail Privacy Protection: its proxy fetches with exactly `Mozilla/5.0` (ua-parser/uap-core#509;
  // SocketLabs, "Identifying Apple MPP opens in notification API events").
  { name: 'apple-mail-privacy', test: (open) => open.userAgent === appleMailPrivacyUserAgent },
  { name: 'known-scanner', test: (open) => isKnownScanner(open.userAgent) },
];

const clickRules: readonly Rule<ClickFacts>[] = [
  // A HEAD asks whether the link answers and reads nothing: browsers follow links with GET (RFC 9110
  // 9.3.2); link checkers and scanners probe with HEAD.
  { name: 'head-request', test: (click) => click.method.toUpperCase() === 'HEAD' },
  // The hidden link is invisible and takes no space, so only software that follows every href does
  // (a hidden honeypot link: US patent 12,489,787, "Email bot click detection").
  { name: 'hidden-link', test: (click) => click.hiddenLink },
  // Browsers always send a User-Agent (RFC 9110 10.1.5: a client SHOULD); Microsoft Safe Links' fetches
  // often carry none ("Bot clicks from security scanners: a field guide").
  { name: 'empty-user-agent', test: (click) => click.userAgent !== undefined && click.userAgent.trim() === '' },
  { name: 'known-scanner', test: (click) => isKnownScanner(click.userAgent) },
  // Within 2 seconds of the send: Mautic's bot rule (BotRatioHelper, timeFromEmailThreshold = 2 s).
  { name: 'within-2-seconds', test: (click) => click.sinceSent !== undefined && click.sinceSent < botClickWindowMs },
];

/** The first rule that makes this open a machine's, or undefined for a person's open. */
export function machineOpenRule(open: OpenFacts): string | undefined {
  return openRules.find((rule) => rule.test(open))?.name;
}

/**
 * The first rule that makes this click a bot's, or undefined for a person's click. Called without
 * `sinceSent` first, so the send time is read only for a click no other rule settled.
 */
export function botClickRule(click: ClickFacts): string | undefined {
  return clickRules.find((rule) => rule.test(click))?.name;
}
