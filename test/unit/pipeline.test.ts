// Error mapping of the pipeline: client errors keep their text, the rest is a generic 500.
import { RecordNotFound } from '../../shared/table/errors';
import { ValidationError } from '../../shared/errors';
import { errorResult } from '../../shared/http/pipeline';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { matchRoute, maxCredentialLength, refuseOverlongCredentials } from '../../shared/http/request';
import type { Route } from '../../shared/routes';

const route: Route = { method: 'GET', path: 'single-send/details', family: 'contact-types', operation: 'details', notFound: 'Record not found' };

describe('errorResult', () => {
  beforeAll(() => {
    process.env.LOG_LEVEL = 'silent';
  });

  it('answers the route’s own not-found text', () => {
    const result = errorResult(new RecordNotFound('single-send', 'x'), route, 'req-1');
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body as string)).toEqual({ status: 'failed', errors: 'Record not found' });
  });

  it('defaults to Record Not Found', () => {
    const result = errorResult(new RecordNotFound('contact', 1), { ...route, notFound: undefined }, 'req-1');
    expect(JSON.parse(result.body as string)).toEqual({ status: 'failed', errors: 'Record Not Found' });
  });

  it('passes validation errors through with 422', () => {
    const result = errorResult(ValidationError.of('name', 'The name field is required.'), route, 'req-1');
    expect(result.statusCode).toBe(422);
    expect(JSON.parse(result.body as string)).toEqual({ status: 'failed', errors: { name: ['The name field is required.'] } });
  });

  it('never leaks an unexpected error', () => {
    const sdkError = Object.assign(new Error('User: arn:aws:iam::123:role/x is not authorized to perform dynamodb:Query'), { name: 'AccessDeniedException' });
    const result = errorResult(sdkError, route, 'req-1');
    expect(result.statusCode).toBe(500);
    expect(result.body).toBe(JSON.stringify({ status: 'failed', errors: 'Internal server error.' }));
  });
});

describe('reading the request line and credentials', () => {
  const event = (rawPath: string, headers: Record<string, string> = {}) =>
    ({ rawPath, headers, requestContext: { http: { method: 'GET' }, stage: '$default' } }) as unknown as APIGatewayProxyEventV2;

  it('answers a path with a broken % escape with 400, whichever family reads it', () => {
    for (const family of [undefined, 'templates' as const]) {
      expect(() => matchRoute(event('/api/assets/previews/%E0%A4%A'), family)).toThrow(
        expect.objectContaining({ statusCode: 400, errors: 'The path is not valid percent-encoding.' }),
      );
    }
    expect(matchRoute(event('/api/assets/previews/a%20b.svg'), 'templates').pathParameters).toEqual({ file: 'a b.svg' });
  });

  it('lets the catch-all answer 404 for a route’s path under a prefix the API does not serve', () => {
    expect(() => matchRoute(event('/x/api/contacts-type'))).toThrow(expect.objectContaining({ statusCode: 404, errors: 'Not Found.' }));
    expect(matchRoute(event('/prod/api/contacts-type'), 'contact-types').route.operation).toBe('list');
  });

  it('refuses a credential header longer than any issued key as wrong credentials', () => {
    const long = 'k'.repeat(maxCredentialLength + 1);
    for (const headers of [{ publickey: long }, { SecretKey: long }, { PUBLICKEY: long }]) {
      expect(() => refuseOverlongCredentials(headers)).toThrow(expect.objectContaining({ statusCode: 401, errors: 'Invalid credentials.' }));
    }
    expect(() => refuseOverlongCredentials({ publickey: 'k'.repeat(maxCredentialLength), secretkey: ` ${'s'.repeat(maxCredentialLength)} ` })).not.toThrow();
    expect(() => refuseOverlongCredentials({ 'x-other': long })).not.toThrow();
  });
});
