// The prerequisite check `npm test` runs first: one line per missing tool, naming it and its installs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { javaMajor, missingPrerequisites, type Found } from '../../infra/scripts/check-prerequisites';

const everything: Found = { nodeVersion: '20.19.0', javaVersion: 'openjdk version "17.0.12" 2024-07-16', chromiumPath: '/usr/bin/chromium', chromiumFound: true };

describe('prerequisite check', () => {
  test('finds nothing missing when Node 20+, Java 17+ and Chromium are there', () => {
    expect(missingPrerequisites(everything)).toEqual([]);
    expect(missingPrerequisites({ ...everything, nodeVersion: '22.1.0', javaVersion: 'java version "21.0.1"' })).toEqual([]);
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
      'Node.js 20 or newer is needed (this is 18.19.1): Debian/Ubuntu: sudo apt-get install -y nodejs npm (Debian 13, Ubuntu 25.04 or newer); macOS: brew install node@20',
      'A Java runtime 17+ is needed for DynamoDB Local (no `java` on the PATH): Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless; macOS: brew install openjdk@17',
      'Chromium is needed for the page tests (nothing at /usr/bin/chromium): Debian/Ubuntu: sudo apt-get install -y chromium; ' +
        'macOS: brew install --cask chromium, then export CHROMIUM_PATH=/Applications/Chromium.app/Contents/MacOS/Chromium',
    ]);
    for (const line of lines) expect(line).not.toContain('\n');
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
