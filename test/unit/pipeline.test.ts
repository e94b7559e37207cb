// Error mapping of the pipeline: client errors keep their text, the rest is a generic 500.
import { RecordNotFound } from '../../shared/table/errors';
import { ValidationError } from '../../shared/http/errors';
import { errorResult } from '../../shared/http/pipeline';
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
