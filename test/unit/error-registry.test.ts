// The pipeline's error registry: every registered error's whole answer, an operation's own
// registrations before the defaults, and a generic 500 for anything nobody registered.
import { Conflict, RateLimited, Unavailable, ValidationError } from '../../shared/errors';
import { defaultErrors, ErrorRegistry, on } from '../../shared/http/error-registry';
import { BadRequestError, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, UnauthorizedError } from '../../shared/http/errors';
import { errorResult } from '../../shared/http/pipeline';
import type { Route } from '../../shared/routes';
import { RecordNotFound } from '../../shared/table/errors';
import { InvalidCursor } from '../../shared/table/pages';

const route: Route = { method: 'GET', path: 'single-send/details', family: 'single-sends', operation: 'details', notFound: 'Record not found' };
const json = { 'content-type': 'application/json; charset=utf-8' };

function failed(statusCode: number, errors: unknown, headers: Record<string, string> = {}) {
  return { statusCode, headers: { ...json, ...headers }, body: JSON.stringify({ status: 'failed', errors }) };
}

const internal = failed(500, 'Internal server error.');

class ThingGone extends Error {}
class SmallThingGone extends ThingGone {}

describe('the error registry', () => {
  beforeAll(() => {
    process.env.LOG_LEVEL = 'silent';
  });

  it.each([
    ['invalid input', ValidationError.of('name', 'The name field is required.'), failed(422, { name: ['The name field is required.'] })],
    ['a record not found, in the route’s text', new RecordNotFound('single-send', 'x'), failed(404, 'Record not found')],
    ['a cursor of another list', new InvalidCursor(), failed(422, { cursor: ['The cursor field is invalid.'] })],
    ['a conflict', new Conflict('Not in this state.'), failed(409, 'Not in this state.')],
    ['a limit, retry-after in whole seconds, at least 1', new RateLimited('Too many.', 0.2), failed(429, 'Too many.', { 'retry-after': '1' })],
    ['a limit, retry-after rounded up', new RateLimited('Too many.', 2.5), failed(429, 'Too many.', { 'retry-after': '3' })],
    ['something unavailable for now', new Unavailable('Mail sending is paused. Try again later.', 300), failed(503, 'Mail sending is paused. Try again later.', { 'Retry-After': '300' })],
    ['an unreadable request', new BadRequestError('Malformed JSON.'), failed(400, 'Malformed JSON.')],
    ['missing credentials', new UnauthorizedError({ PublicKey: ['The public key field is required.'] }), failed(401, { PublicKey: ['The public key field is required.'] })],
    ['wrong credentials', new UnauthorizedError('Invalid credentials.'), failed(401, 'Invalid credentials.')],
    ['an unknown path', new NotFoundError('Not Found.'), failed(404, 'Not Found.')],
    ['a wrong method', new MethodNotAllowedError(['GET', 'POST']), failed(405, 'Method Not Allowed.', { allow: 'GET, POST' })],
    ['a body too large', new PayloadTooLargeError('Request body too large.'), failed(413, 'Request body too large.')],
  ])('answers %s', (_what, error, answer) => {
    expect(errorResult(error, route, 'req')).toEqual(answer);
  });

  it('answers a record not found as Record Not Found on a route without its own text, and outside any route', () => {
    expect(errorResult(new RecordNotFound('contact', 1), { ...route, notFound: undefined }, 'req')).toEqual(failed(404, 'Record Not Found'));
    expect(errorResult(new RecordNotFound('contact', 1), undefined, 'req')).toEqual(failed(404, 'Record Not Found'));
  });

  it('answers anything it does not know with a generic 500', () => {
    for (const error of [new Error('User: arn:aws:iam::123:role/x is not authorized'), new ThingGone('secret detail'), new TypeError('x is undefined'), 'a string', undefined]) {
      expect(errorResult(error, route, 'req')).toEqual(internal);
    }
  });

  it('lets an operation answer its own errors, as an answer or as an error of the vocabulary', () => {
    const errors = new ErrorRegistry(
      [
        on(ThingGone, () => ValidationError.of('thing_id', 'The selected thing id is invalid.')),
        on(RecordNotFound, () => ({ statusCode: 404, errors: { id: ['The selected id is invalid.'] } })),
      ],
      defaultErrors,
    );
    expect(errorResult(new ThingGone(), route, 'req', errors)).toEqual(failed(422, { thing_id: ['The selected thing id is invalid.'] }));
    // A subclass is answered by its nearest registered class.
    expect(errorResult(new SmallThingGone(), route, 'req', errors)).toEqual(failed(422, { thing_id: ['The selected thing id is invalid.'] }));
    // The operation's registration comes before the default one.
    expect(errorResult(new RecordNotFound('thing', 1), route, 'req', errors)).toEqual(failed(404, { id: ['The selected id is invalid.'] }));
    // What it does not register gets the default answer, and the rest a 500.
    expect(errorResult(new Conflict('Not now.'), route, 'req', errors)).toEqual(failed(409, 'Not now.'));
    expect(errorResult(new Error('boom'), route, 'req', errors)).toEqual(internal);
    // Its registrations are its own: the defaults do not know them.
    expect(errorResult(new ThingGone(), route, 'req')).toEqual(internal);
  });

  it('answers a handler that names an error nobody registered, or a loop of them, with a 500', () => {
    const unknown = new ErrorRegistry([on(ThingGone, () => new Error('not in the vocabulary'))], defaultErrors);
    expect(errorResult(new ThingGone(), route, 'req', unknown)).toEqual(internal);
    const loop = new ErrorRegistry([on(ThingGone, (error) => error)], defaultErrors);
    expect(errorResult(new ThingGone(), route, 'req', loop)).toEqual(internal);
  });

  it('refuses one class registered twice', () => {
    expect(() => new ErrorRegistry([on(ThingGone, () => new Conflict('a')), on(ThingGone, () => new Conflict('b'))])).toThrow('ThingGone is registered twice');
  });
});
