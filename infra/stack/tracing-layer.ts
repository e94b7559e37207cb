// The X-Ray SDK that Powertools Tracer drives, as one Lambda layer every function loads instead of
// carrying its own copy (see `externalModules` in lambda-bundling.ts). It is built from our pinned
// node_modules, not taken from a published layer, so the version is the lock file's: esbuild bundles
// the package and its dependencies (cls-hooked, semver, atomic-batcher, ...) into one minified
// CommonJS file at `nodejs/node_modules/aws-xray-sdk-core/index.js`, where Lambda's NODE_PATH
// (/opt/nodejs/node_modules) finds it. The build runs in this process, so `cdk synth` needs no Docker.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AssetHashType } from 'aws-cdk-lib';
import { Code, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { bundling, functionArchitecture, functionRuntime, repositoryRoot, tracingLayerPackage } from './lambda-bundling';

/** Where a layer's Node.js packages go: Lambda puts `/opt/nodejs/node_modules` on NODE_PATH. */
export const layerModulesDirectory = join('nodejs', 'node_modules');

interface PackageManifest {
  name: string;
  version: string;
  main?: string;
  license?: string;
}

/** The package as installed from the lock file: its directory and manifest. */
function pinnedPackage(): { directory: string; manifest: PackageManifest } {
  const manifestPath = require.resolve(`${tracingLayerPackage}/package.json`, { paths: [repositoryRoot] });
  return { directory: dirname(manifestPath), manifest: JSON.parse(readFileSync(manifestPath, 'utf8')) as PackageManifest };
}

/**
 * Writes the layer's content under `outputDir`: the package bundled into one minified CommonJS file
 * and a package.json naming it. Also used by the init-time bench, which loads the function bundles
 * with this directory on NODE_PATH as Lambda does.
 * @returns the bundled file.
 */
export function buildTracingLayer(outputDir: string): string {
  const { directory, manifest } = pinnedPackage();
  const packageDirectory = join(outputDir, layerModulesDirectory, tracingLayerPackage);
  const outfile = join(packageDirectory, 'index.js');
  buildSync({
    entryPoints: [join(directory, manifest.main ?? 'index.js')],
    outfile,
    // Module names in the file are relative to the package (`dist/lib/...`, `../cls-hooked/...`): the
    // same on every machine, and so is the asset's hash.
    absWorkingDir: directory,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    // The functions' target and package entry points, so the code is what their bundles held before.
    target: bundling.target,
    mainFields: bundling.mainFields,
    // Minified but for names, and no source map: the functions run with --enable-source-maps, under
    // which Node reads and parses the map of every file it loads that has one, as it loads it (about
    // 7 ms for this file's on Node 20, a cost every cold start would pay). With names kept, an X-Ray
    // frame in a stack trace still says which function it is.
    minifyWhitespace: true,
    minifySyntax: true,
    minifyIdentifiers: false,
    sourcemap: false,
    logLevel: 'warning',
  });
  const layerManifest = { name: manifest.name, version: manifest.version, main: 'index.js', license: manifest.license };
  writeFileSync(join(packageDirectory, 'package.json'), `${JSON.stringify(layerManifest, null, 2)}\n`);
  return outfile;
}

/** The layer, for Node 24 on arm64 as the functions run (lambda-bundling.ts). */
export function tracingLayer(scope: Construct, id: string): LayerVersion {
  const { manifest } = pinnedPackage();
  return new LayerVersion(scope, id, {
    // Hashed by its output, as NodejsFunction hashes a bundle: a new version only when the file changes.
    code: Code.fromAsset(repositoryRoot, {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Required by the API; used only if local bundling declines, which it never does (it
        // succeeds or throws: esbuild is a dev dependency, as for the functions' bundles).
        image: functionRuntime.bundlingImage,
        local: {
          tryBundle(outputDir: string): boolean {
            buildTracingLayer(outputDir);
            return true;
          },
        },
      },
    }),
    compatibleRuntimes: [functionRuntime],
    compatibleArchitectures: [functionArchitecture],
    description: `${manifest.name} ${manifest.version} for Powertools Tracer, bundled into one file`,
    license: manifest.license,
  });
}
