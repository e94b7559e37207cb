// The routing table: matching, 405 detection and its own consistency.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findRoute, httpFamilies, pathBelowApi, routeKey, routes } from '../../shared/routes';

describe('routes', () => {
  it('matches a path below the API root, with or without a stage prefix or trailing slash', () => {
    expect(pathBelowApi('/api/contacts-type/view')).toBe('contacts-type/view');
    expect(pathBelowApi('/prod/api/contacts-type/')).toBe('contacts-type');
    expect(pathBelowApi('/health')).toBeUndefined();
  });

  it('finds a route by method and path, and lists the methods of a known path', () => {
    expect(findRoute('get', 'contacts-type').match?.route.operation).toBe('list');
    expect(findRoute('PUT', 'contacts-type')).toEqual({ allowed: ['GET'] });
    expect(findRoute('GET', 'no-such-thing')).toEqual({ allowed: [] });
  });

  it('matches path parameters', () => {
    const table = [{ method: 'GET' as const, path: 'assets/previews/{file}', family: 'fallback' as const, operation: 'x' }];
    expect(findRoute('GET', 'assets/previews/blank.png', table).match?.pathParameters).toEqual({ file: 'blank.png' });
  });

  it('has no duplicate route keys', () => {
    const keys = routes.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('has a handler file for every family', () => {
    for (const family of httpFamilies) expect(existsSync(join(__dirname, '../../functions', family, 'handler.ts'))).toBe(true);
  });
});
