// The bench's cold-start scenario (bench/scenarios/cold-start.ts) bundles each function as the stack
// does, from the stack's own bundling options, and loads it beside a bare handler of the same SDK
// clients. Neither may drift from the stack: an option it does not apply stopped the whole scenario
// (an esbuild argument added to the stack on 2026-11-28), and a client with no baseline drops that
// function's figures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { esbuildOptions, sdkClients } from '../../bench/scenarios/cold-start';
import { bundling } from '../../infra/stack/lambda-bundling';

test('the cold-start bench builds with every bundling option the stack sets', () => {
  const options = esbuildOptions(bundling);
  expect(options).toMatchObject({
    minify: bundling.minify,
    sourcemap: bundling.sourceMap,
    target: bundling.target,
    external: bundling.externalModules,
    legalComments: 'external',
    define: { 'process.env.LAMBDA_BUNDLE': '"true"' },
  });
  expect(Object.keys(options.alias ?? {})).toEqual(['@aws-sdk/credential-provider-node']);
});

test('the cold-start bench has a baseline for every AWS SDK client the project depends on', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const clients = Object.keys(manifest.dependencies).filter((name) => name.startsWith('@aws-sdk/client-'));
  expect(clients.filter((name) => !sdkClients[name])).toEqual([]);
});
