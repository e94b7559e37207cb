// Where a webhook may point. Deployed: https only, and never at a private, loopback, link-local,
// unique-local or otherwise non-public address (SSRF): checked on save by resolving the host, and
// again on every delivery by the connection's own DNS lookup (webhookLookup), so a name that later
// resolves inward (DNS rebinding) is refused at the moment of connecting. Locally (`npm start`),
// plain http to this machine is allowed too, so a receiver on the laptop can be tested.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { config } from '../config';

/** Longest URL accepted: the common limit of browsers and proxies. */
export const maxWebhookUrlLength = 2048;

/** Hosts plain http may name when running locally. */
const localHosts = ['localhost', '127.0.0.1', '[::1]'];

// Every range that is not the public internet (IANA special-purpose registries).
const nonPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata at 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo tunnels (they carry an IPv4 address inside)
  ['2002::', 16], // 6to4 tunnels (likewise; deprecated)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed inward by some)
  ['ff00::', 8], // multicast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (IPv4-mapped `::ffff:a.b.c.d` or NAT64 `64:ff9b::`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return undefined;
  if (match[1]) return match[1];
  const high = parseInt(match[2] as string, 16);
  const low = parseInt(match[3] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !nonPublic.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return isIP(v4) === 4 && !nonPublic.check(v4, 'ipv4');
  return !nonPublic.check(address, 'ipv6');
}

/**
 * Why a URL may not be a webhook's target, or undefined when its form is acceptable (deployed, the
 * host's addresses are checked separately). Messages follow Laravel's wording where one exists.
 */
export function urlFormProblem(text: string): string | undefined {
  if (text.length > maxWebhookUrlLength) return `The url field must not be greater than ${maxWebhookUrlLength} characters.`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'The url field must be a valid URL.';
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') return 'The url field must be a valid URL.';
  const local = config().runtime === 'local';
  if (url.protocol === 'https:' || (local && localHosts.includes(url.hostname))) return undefined;
  return local
    ? `The url field must start with one of the following: https://, ${localHosts.map((host) => `http://${host}`).join(', ')}.`
    : 'The url field must start with one of the following: https://.';
}

/** The host of a URL as DNS knows it (IPv6 literals without brackets). */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true } satisfies LookupAllOptions, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/**
 * Deployed: whether every address the URL's host resolves to is public (a host that does not resolve
 * is refused too). Locally every target passes: the receiver is on the developer's machine.
 */
export async function resolvesToPublicAddresses(text: string): Promise<boolean> {
  if (config().runtime === 'local') return true;
  const host = hostOf(new URL(text));
  if (isIP(host)) return isPublicAddress(host);
  try {
    const addresses = await lookupAll(host);
    return addresses.length > 0 && addresses.every((entry) => isPublicAddress(entry.address));
  } catch {
    return false;
  }
}

export class NonPublicAddressError extends Error {
  override readonly name = 'NonPublicAddressError';
  readonly code = 'ENONPUBLIC';
}

/**
 * The DNS lookup a delivery's connection uses: node's own, refusing the connection when any address
 * of the host is not public, so what is checked is exactly what is connected to. Undefined locally.
 */
export function webhookLookup(): LookupFunction | undefined {
  if (config().runtime === 'local') return undefined;
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused || addresses.length === 0) {
        return callback(new NonPublicAddressError(`${hostname} resolves to a non-public address ${refused?.address ?? '(none)'}`), '', 0);
      }
      // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily), else for one.
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses as [LookupAddress];
      return callback(null, first.address, first.family);
    });
  };
}
