// On the local stack, links in mail lead to the stand-in of the public links' REST API, which limits
// each client address as the WAF rate rule does deployed: one address flooding the open pixel with junk
// tokens gets WAF's 429 envelope, another address is still served, and the old links (below /api/) work.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { transparentGif } from '../../functions/public-pages/open-pixel';
import { openPixelUrl } from '../../shared/public-links/recipient-links';
import { startTestStack, type TestStack } from '../support/local-stack';

// Two client addresses as the gateway sees them: connections from two loopback addresses (Linux routes
// all of 127.0.0.0/8 to the loopback interface). The stand-in, like WAF, ignores X-Forwarded-For.
const clientA = '127.0.0.2';
const clientB = '127.0.0.3';
const limit = 10;

let stack: TestStack;

beforeAll(async () => {
  // Each junk token is logged as refused; a flood of them says nothing here.
  process.env.LOG_LEVEL ??= 'silent';
  stack = await startTestStack({ publicClientLimit: limit });
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

function get(url: string, from: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { localAddress: from, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

test('an address past its limit gets the 429 envelope with Retry-After; another address and the old links are still served', async () => {
  // Prepare: the link the service builds leads to the public links' root.
  const pixel = openPixelUrl('junk-token');
  expect(pixel.startsWith(`${stack.publicLinksUrl}public/open?token=`)).toBe(true);

  // Act: A uses up its minute (a forged X-Forwarded-For changes nothing), then asks once more.
  const served: number[] = [];
  for (let i = 0; i < limit; i++) served.push((await get(pixel, clientA, { 'X-Forwarded-For': `198.51.100.${i}` })).status);
  const refused = await get(pixel, clientA);
  const otherClient = await get(pixel, clientB);
  const oldLink = await get(`${stack.apiUrl}public/open?token=junk-token`, clientA);
  const notServed = await get(`${stack.publicLinksUrl}contacts-type`, clientB);

  // Assess
  expect(served).toEqual(Array(limit).fill(200));
  expect(refused.status).toBe(429);
  expect(refused.headers['retry-after']).toBe('60');
  expect(refused.headers['content-type']).toBe('application/json');
  expect(JSON.parse(refused.body.toString())).toEqual({ status: 'failed', errors: `Too many requests: at most ${limit} per minute per client address. Try again in 1 minute.` });
  expect(otherClient.status).toBe(200);
  expect(otherClient.headers['content-type']).toBe('image/gif');
  expect(otherClient.body).toEqual(transparentGif);
  expect(oldLink.status).toBe(200);
  expect(oldLink.body).toEqual(transparentGif);
  expect(notServed.status).toBe(404);
  expect(JSON.parse(notServed.body.toString())).toEqual({ status: 'failed', errors: 'Not Found.' });
}, 60_000);
