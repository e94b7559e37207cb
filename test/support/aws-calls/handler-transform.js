// Jest transform of `functions/<name>/handler.ts` while AWS calls are recorded (AWS_CALLS_DIR set):
// the exported handler is wrapped so each invocation is attributed to its function (attribution.ts),
// however the test or the local runtime reaches it. Otherwise the file is compiled unchanged.
const { createTransformer } = require('@swc/jest');

const swc = createTransformer();
const attribution = require.resolve('./attribution.ts');
const recording = () => Boolean(process.env.AWS_CALLS_DIR);

/** The source with `handler` renamed and re-exported wrapped; throws for a handler declared another way. */
function attributed(source, filename) {
  const name = /functions[\\/]([^\\/]+)[\\/]handler\.ts$/.exec(filename)?.[1];
  if (!name) return source;
  const declarations = [/^export const handler = /m, /^export async function handler\(/m];
  const found = declarations.filter((declaration) => declaration.test(source));
  if (found.length !== 1) throw new Error(`${filename}: no single 'export const handler =' or 'export async function handler(' to attribute`);
  const renamed = source
    .replace(/^export const handler = /m, 'const unattributedHandler = ')
    .replace(/^export async function handler\(/m, 'async function unattributedHandler(');
  return `${renamed}\nexport const handler = (require(${JSON.stringify(attribution)}) as typeof import(${JSON.stringify(attribution)})).attributedHandler(${JSON.stringify(name)}, unattributedHandler);\n`;
}

module.exports = {
  process(source, filename, options) {
    return swc.process(recording() ? attributed(source, filename) : source, filename, options);
  },
  getCacheKey(source, filename, options) {
    return `${swc.getCacheKey(source, filename, options)}:${recording() ? 'attributed' : 'plain'}`;
  },
};
