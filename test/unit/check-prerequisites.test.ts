// The prerequisite check `npm test` runs first: one line per missing tool, naming it and its installs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { javaMajor, missingPrerequisites, type Found } from '../../infra/scripts/check-prerequisites';

const everything: Found = { nodeVersion: '24.21.0', javaVersion: 'openjdk version "17.0.12" 2024-07-16', chromiumPath: '/usr/bin/chromium', chromiumFound: true };

describe('prerequisite check', () => {
  test("finds nothing missing when Node 24 (Lambda's), Java 17+ and Chromium are there", () => {
    expect(missingPrerequisites(everything)).toEqual([]);
    expect(missingPrerequisites({ ...everything, nodeVersion: '24.0.0', javaVersion: 'java version "21.0.1"' })).toEqual([]);
  });

  test('reads Java\'s major version in both of its styles', () => {
    expect(javaMajor('openjdk version "17.0.2" 2022-01-18')).toBe(17);
    expect(javaMajor('java version "1.8.0_392"')).toBe(8);
    expect(javaMajor('openjdk version "21" 2023-09-19')).toBe(21);
    expect(javaMajor('nonsense')).toBeUndefined();
  });

  test('names each missing tool on one line with its Debian/Ubuntu and macOS installs', () => {
    const lines = missingPrerequisites({ nodeVersion: '18.19.1', javaVersion: undefined, chromiumPath: '/usr/bin/chromium', chromiumFound: false });
    expect(lines).toEqual([
      "Node.js 24, the functions' Lambda runtime, is needed (this is 18.19.1): on Linux x64 and arm64, npm install provides it " +
        '(node_modules/.bin/node, used by every npm script); elsewhere install Node.js 24: macOS: brew install node@24',
      'A Java runtime 17+ is needed for DynamoDB Local (no `java` on the PATH): Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless; macOS: brew install openjdk@17',
      'Chromium is needed for the page tests (nothing at /usr/bin/chromium): Debian/Ubuntu: sudo apt-get install -y chromium; ' +
        'macOS: brew install --cask chromium, then export CHROMIUM_PATH=/Applications/Chromium.app/Contents/MacOS/Chromium',
    ]);
    for (const line of lines) expect(line).not.toContain('\n');
  });

  test('refuses a Node major other than the functions\' runtime, older or newer', () => {
    for (const nodeVersion of ['20.20.2', '22.12.0', '26.1.0']) {
      expect(missingPrerequisites({ ...everything, nodeVersion })).toEqual([expect.stringContaining(`(this is ${nodeVersion})`)]);
    }
  });

  test('refuses a Java older than 17', () => {
    expect(missingPrerequisites({ ...everything, javaVersion: 'java version "1.8.0_392"' })).toEqual([expect.stringContaining('(found Java 8)')]);
  });

  test('as a script, stops with exit code 1 and one line when Chromium is not where the page tests look', () => {
    const script = join(__dirname, '..', '..', 'infra', 'scripts', 'check-prerequisites.ts');
    const tsx = join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
    const run = spawnSync(tsx, [script], { encoding: 'utf8', env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium' }, timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n').filter((line) => line.startsWith('missing prerequisite: Chromium'))).toHaveLength(1);
  });
});
