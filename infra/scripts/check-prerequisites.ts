// `npm test` runs this first (the `pretest` script): the tests need Lambda's Node major, a Java runtime (DynamoDB
// Local) and Chromium (the page tests). Each missing one is named on one line with its install
// commands for Debian/Ubuntu and macOS, and the run stops at once instead of failing minutes later.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lambdaNodeMajor } from '../lambda-node';

/** Where the page tests find Chromium: Debian's package (.ci/run installs it), or the binary CHROMIUM_PATH names. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Found {
  /** `process.versions.node`. */
  nodeVersion: string;
  /** What `java -version` printed (it prints to stderr), or undefined when there is no `java`. */
  javaVersion: string | undefined;
  chromiumPath: string;
  chromiumFound: boolean;
}

/** Oldest Java DynamoDB Local runs on. */
export const minimumJava = 17;

const major = (version: string) => Number(/^(\d+)/.exec(version)?.[1] ?? 0);

/** The major version in `java -version` output: `openjdk version "17.0.2"` is 17, `"1.8.0_392"` is 8. */
export function javaMajor(output: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(output);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 ? Number(match[2]) : first;
}

/** One line per missing prerequisite: what is missing, and how to install it. Empty when all are there. */
export function missingPrerequisites(found: Found): string[] {
  const lines: string[] = [];
  if (major(found.nodeVersion) !== lambdaNodeMajor) {
    lines.push(
      `Node.js ${lambdaNodeMajor}, the functions' Lambda runtime, is needed (this is ${found.nodeVersion}): on Linux x64 and arm64, npm install provides it ` +
        `(node_modules/.bin/node, used by every npm script); elsewhere install Node.js ${lambdaNodeMajor}: macOS: brew install node@${lambdaNodeMajor}`,
    );
  }
  const java = found.javaVersion === undefined ? undefined : javaMajor(found.javaVersion);
  if (java === undefined || java < minimumJava) {
    const what = found.javaVersion === undefined ? 'no `java` on the PATH' : `found Java ${java ?? 'of unknown version'}`;
    lines.push(`A Java runtime ${minimumJava}+ is needed for DynamoDB Local (${what}): Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless; macOS: brew install openjdk@17`);
  }
  if (!found.chromiumFound) {
    lines.push(
      `Chromium is needed for the page tests (nothing at ${found.chromiumPath}): Debian/Ubuntu: sudo apt-get install -y chromium; ` +
        'macOS: brew install --cask chromium, then export CHROMIUM_PATH=/Applications/Chromium.app/Contents/MacOS/Chromium',
    );
  }
  return lines;
}

function javaVersion(): string | undefined {
  const run = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 15_000 });
  if (run.error || run.status !== 0) return undefined;
  return `${run.stderr}${run.stdout}`;
}

if (require.main === module) {
  const java = javaVersion();
  const missing = missingPrerequisites({ nodeVersion: process.versions.node, javaVersion: java, chromiumPath, chromiumFound: existsSync(chromiumPath) });
  for (const line of missing) console.error(`missing prerequisite: ${line}`);
  if (missing.length > 0) process.exit(1);
  // One line that says what the run is on: the Node of the functions' Lambda runtime, above all.
  console.log(`prerequisites: Node.js ${process.versions.node} (the functions run on Lambda's nodejs${lambdaNodeMajor}.x), ${java?.split('\n')[0]?.trim()}, Chromium at ${chromiumPath}`);
}
