// Scenario 4 (send path), rendering: one recipient's mail (placeholders, preheader, footer, pixel,
// text part) from a design at the size limit, a normal one beside adversarial ones of the same
// size, in one run. Rendering is per recipient on the shared delivery workers, so its cost must be
// linear in the design whatever the design holds: the adversarial designs are the inputs that sent
// the former regular expressions quadratic or cubic (unclosed tags, comments and elements, preheader
// spans and links that never close, runs of `<`), and densely nested tags.
//
// Each render is the delivery path's (shared/delivery/deliver.ts): the recipient's links tracked, as
// every marketing mail's are; the normal and the mixed designs are also rendered without tracking,
// in the details, to compare with runs before tracking was measured.
//
// Time is CPU time (user + system of this process) per render, median of BENCH_RENDER_RUNS after a
// warm-up: the bench machine is shared, and wall time there measures the neighbours too.
//   BENCH_RENDER_KB (350, the largest design an automation step accepts), BENCH_RENDER_RUNS (21)
// Standalone: `npx tsx bench/scenarios/render.ts` runs only this and prints its rows.
import { resetConfig } from '../../shared/config';
import { clickLinkBuilder } from '../../shared/rendering/click-tracking';
import { renderMail, type RenderInput } from '../../shared/rendering/render';
import { findDesignTemplate } from '../../shared/templates/repository';
import { details, log, median, num, printTable, round, row } from '../lib/report';

const designBytes = num('BENCH_RENDER_KB', 350) * 1024;
const runs = num('BENCH_RENDER_RUNS', 21);

/** `unit` repeated to the design size, after `prefix`. */
const repeated = (unit: string, prefix = '', bytes = designBytes) => `${prefix}${unit.repeat(Math.ceil((bytes - prefix.length) / unit.length))}`;

/** A library design with its body repeated up to the size: about 22 tags per KB, long inline styles. */
function normalDesign(): string {
  const template = findDesignTemplate(2) ?? findDesignTemplate(1);
  if (!template) throw new Error('no library design template to build the normal design from');
  const html = template.html_code;
  const start = html.indexOf('>', html.search(/<body\b/i)) + 1;
  const end = html.search(/<\/body\s*>/i);
  if (start <= 0 || end < start) throw new Error('the library design has no <body>');
  const body = html.slice(start, end);
  return `${html.slice(0, start)}${body.repeat(Math.max(1, Math.floor((designBytes - html.length) / body.length) + 1))}${html.slice(end)}`;
}

/** Each at the full size on its own. */
const patterns: Record<string, string> = {
  'unclosed <a href="" tags': repeated('<a href=""'),
  'unclosed preheader <span tags': repeated('<span class="preheader"'),
  'preheader spans never closed': repeated('<span class="preheader">', '<body>'),
  'preheader spans and links never closed': repeated('<span class="preheader"><a href="">', '<body>'),
  'links never closed': repeated('<a href="">'),
  'unclosed comments': repeated('<!--x'),
  'unclosed <style> elements': repeated('<style>x'),
  'unclosed <head> elements': repeated('<head>x'),
  'a run of <': repeated('<'),
  'unclosed <img tags': repeated('<img'),
  'nested lists': repeated('<ul><li>x'),
  'nested inline tags': repeated('<b><i>x'),
};

/**
 * One design of the same size holding a share of each pattern. Those a browser would read to the
 * end of the design (an unclosed tag, comment or `<style>`) come last, so the scanner goes through
 * every other share before one of them ends the design.
 */
function adversarialDesign(bytes = designBytes): string {
  const closed = ['<span class="preheader">', '<span class="preheader"><a href="">', '<a href="">', '<head>x', '<', '<ul><li>x', '<b><i>x', '&#x2014&amp&rsquo;'];
  const endless = ['<!--x', '<style>x', '<a href=""', '<span class="preheader"', '<img'];
  const share = Math.floor(bytes / (closed.length + 1));
  const tail = Math.floor(share / endless.length);
  return `<body>${closed.map((unit) => repeated(unit, '', share)).join('')}${endless.map((unit) => repeated(unit, '', tail)).join('')}`;
}

/** Designs whose mails are rendered with their links left as they are. */
const untracked = new Set<string>();

function input(name: string, designHtml: string): RenderInput {
  const links: RenderInput['links'] = {
    preferences: 'https://mail.example.com/api/public/preferences?token=abc.def',
    oneClickUnsubscribe: 'https://mail.example.com/api/public/unsubscribe?token=abc.def',
    openPixel: 'https://mail.example.com/api/public/open?token=abc.def',
  };
  // As deliver.ts does it: a builder per recipient, signing each tracked link for their token.
  if (!untracked.has(name)) links.trackClick = clickLinkBuilder('abc.def');
  return {
    designHtml,
    subject: 'News for ((first_name))',
    preheader: 'This week, ((first_name))',
    fields: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', full_name: 'Ada Lovelace' },
    senderName: 'Acme News',
    senderAddress: '1 Main Street, Springfield',
    links,
  };
}

/**
 * Runs `work` with the configuration the click links are signed with: on its own, this scenario has
 * no local stack to take it from, so it lends the two values the link builder needs, and takes them
 * back after (the configuration is read again by whatever runs next).
 */
function withLinkConfig<T>(work: () => T): T {
  const lent = Object.entries({ TABLE_NAME: 'bench-render', APP_RUNTIME: 'local' }).filter(([name]) => process.env[name] === undefined);
  for (const [name, value] of lent) process.env[name] = value;
  resetConfig();
  try {
    return work();
  } finally {
    for (const [name] of lent) delete process.env[name];
    resetConfig();
  }
}

interface Cost {
  cpuMsPerKb: number;
  wallMsPerKb: number;
  textChars: number;
}

/**
 * Median CPU and wall milliseconds per KB of each design, over `runs` renders after a warm-up. The
 * designs take turns within each round, so that all of them meet the same heap and the same
 * neighbours, and a ratio between two of them compares like with like.
 */
function measure(designs: Record<string, string>): Record<string, Cost> {
  const names = Object.keys(designs);
  const textChars: Record<string, number> = {};
  for (const name of names) for (let i = 0; i < 3; i++) textChars[name] = renderMail(input(name, designs[name]!)).text.length;
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const wall: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let run = 0; run < runs; run++) {
    for (const name of names) {
      const cpuStart = process.cpuUsage();
      const wallStart = performance.now();
      renderMail(input(name, designs[name]!));
      wall[name]!.push(performance.now() - wallStart);
      const used = process.cpuUsage(cpuStart);
      cpu[name]!.push((used.user + used.system) / 1000);
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const kb = designs[name]!.length / 1024;
      return [name, { cpuMsPerKb: median(cpu[name]!) / kb, wallMsPerKb: median(wall[name]!) / kb, textChars: textChars[name]! }];
    }),
  );
}

export async function scenarioRender(): Promise<void> {
  const scenario = '6 render';
  const kb = Math.round(designBytes / 1024);
  const normal = normalDesign();
  const mixed = adversarialDesign();
  log(`render: normal and adversarial designs of ${kb} KB, ${runs} runs each`);
  const eighthBytes = Math.floor(designBytes / 8);
  untracked.add('normal untracked').add('mixed untracked');
  const costs = withLinkConfig(() => measure({ normal, mixed, eighth: adversarialDesign(eighthBytes), ...patterns, 'normal untracked': normal, 'mixed untracked': mixed }));
  const { normal: normalCost, mixed: mixedCost, eighth } = costs as Record<'normal' | 'mixed' | 'eighth', Cost>;
  const plain = { normal: costs['normal untracked']!, mixed: costs['mixed untracked']! };
  const each = Object.fromEntries(Object.keys(patterns).map((name) => [name, costs[name]!]));
  const [worstName, worst] = Object.entries(each).sort((a, b) => b[1].cpuMsPerKb - a[1].cpuMsPerKb)[0]!;
  const digits = (value: number) => round(value, 4);

  row(scenario, `normal design ${kb} KB, CPU per KB`, digits(normalCost.cpuMsPerKb), 'ms/KB');
  row(scenario, `adversarial design ${kb} KB (all patterns), CPU per KB`, digits(mixedCost.cpuMsPerKb), 'ms/KB');
  row(scenario, 'adversarial / normal', round(mixedCost.cpuMsPerKb / normalCost.cpuMsPerKb, 2), 'x', { op: '<=', limit: 2 });
  row(scenario, 'adversarial / normal, links not tracked', round(plain.mixed.cpuMsPerKb / plain.normal.cpuMsPerKb, 2), 'x');
  row(scenario, `worst single pattern (${worstName}) ${kb} KB, CPU per KB`, digits(worst.cpuMsPerKb), 'ms/KB');
  row(scenario, 'worst single pattern / normal', round(worst.cpuMsPerKb / normalCost.cpuMsPerKb, 2), 'x');
  // Linearity itself: the same mix at an eighth of the size costs the same per KB when linear (a
  // quadratic renderer would show 8x here, a cubic one 64x).
  row(scenario, `adversarial per KB at ${kb} KB / at ${Math.round(eighthBytes / 1024)} KB`, round(mixedCost.cpuMsPerKb / eighth.cpuMsPerKb, 2), 'x', { op: '<=', limit: 1.5 });
  details.render = {
    design_kb: kb,
    runs,
    ms_per_kb: 'median over the runs; cpu = user + system time of the bench process',
    normal: { bytes: normal.length, cpu_ms_per_kb: digits(normalCost.cpuMsPerKb), wall_ms_per_kb: digits(normalCost.wallMsPerKb), text_chars: normalCost.textChars },
    adversarial: { bytes: mixed.length, cpu_ms_per_kb: digits(mixedCost.cpuMsPerKb), wall_ms_per_kb: digits(mixedCost.wallMsPerKb), text_chars: mixedCost.textChars },
    links_not_tracked: {
      normal_cpu_ms_per_kb: digits(plain.normal.cpuMsPerKb),
      adversarial_cpu_ms_per_kb: digits(plain.mixed.cpuMsPerKb),
      ratio: round(plain.mixed.cpuMsPerKb / plain.normal.cpuMsPerKb, 2),
    },
    adversarial_eighth: { cpu_ms_per_kb: digits(eighth.cpuMsPerKb), wall_ms_per_kb: digits(eighth.wallMsPerKb) },
    patterns: Object.fromEntries(
      Object.entries(each).map(([name, cost]) => [name, { cpu_ms_per_kb: digits(cost.cpuMsPerKb), wall_ms_per_kb: digits(cost.wallMsPerKb), ratio: round(cost.cpuMsPerKb / normalCost.cpuMsPerKb, 2) }]),
    ),
  };
}

if (require.main === module) {
  scenarioRender()
    .then(() => {
      printTable();
      console.log(JSON.stringify(details.render, null, 2));
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
