// Preview images of the library's designs: a wireframe SVG drawn from each design's blocks and
// colours, so a preview can never drift from the design it shows.
import type { Block, Design, Theme } from '../../shared/templates/design';

const width = 320;
const height = 440;
const margin = 24;
const column = width - 2 * margin;

type Shape = string;

function rect(x: number, y: number, w: number, h: number, fill: string, radius = 0, extra = ''): Shape {
  return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${radius}" fill="${fill}"${extra}/>`;
}

/** Grey bars standing for lines of text. */
function lines(x: number, y: number, w: number, count: number, fill: string, gap = 9): Shape[] {
  return Array.from({ length: count }, (_, i) => rect(x, y + i * gap, i === count - 1 && count > 1 ? w * 0.6 : w, 4, fill, 2));
}

function textLines(text: string): number {
  return Math.max(1, Math.min(4, Math.ceil(text.length / 70)));
}

/** One block's shapes at `top`, and its height. */
function drawBlock(block: Block, theme: Theme, top: number): { shapes: Shape[]; height: number } {
  const x = margin + 16;
  const inner = column - 32;
  switch (block.type) {
    case 'header':
      return { shapes: [rect(x, top + 12, 70, 8, theme.accent, 2), rect(margin, top + 31, column, 1, theme.background)], height: 32 };
    case 'hero': {
      const body = block.text ? textLines(block.text) : 0;
      const h = 40 + body * 9 + (block.button ? 28 : 0);
      const shapes = [rect(margin, top, column, h, theme.accent), rect(x, top + 16, inner * 0.7, 9, theme.accentText, 2)];
      shapes.push(...lines(x, top + 34, inner, body, theme.accentText, 9).map((shape) => shape.replace('/>', ' opacity="0.75"/>')));
      if (block.button) shapes.push(rect(x, top + 34 + body * 9 + 2, 80, 16, theme.surface, 4));
      return { shapes, height: h };
    }
    case 'heading':
      return { shapes: [rect(x, top + 12, inner * 0.55, 8, theme.text, 2)], height: 24 };
    case 'text': {
      const count = textLines(block.text);
      return { shapes: lines(x, top + 10, inner, count, theme.muted), height: 14 + count * 9 };
    }
    case 'button':
      return { shapes: [rect(x, top + 6, 90, 18, theme.accent, 4)], height: 32 };
    case 'columns': {
      const gap = 8;
      const each = (column - 16 - gap * (block.items.length - 1)) / block.items.length;
      const shapes = block.items.flatMap((_, i) => {
        const left = margin + 8 + i * (each + gap);
        return [rect(left, top + 10, each * 0.7, 6, theme.text, 2), ...lines(left, top + 22, each, 3, theme.muted, 8)];
      });
      return { shapes, height: 56 };
    }
    case 'details': {
      const rows = block.rows.length + (block.total ? 1 : 0);
      const shapes = Array.from({ length: rows }, (_, i) => [
        rect(x, top + 8 + i * 16, inner * 0.35, 4, theme.muted, 2),
        rect(x + inner * 0.75, top + 8 + i * 16, inner * 0.25, 4, block.total && i === rows - 1 ? theme.text : theme.muted, 2),
        rect(x, top + 18 + i * 16, inner, 1, theme.background),
      ]).flat();
      return { shapes, height: 12 + rows * 16 };
    }
    case 'divider':
      return { shapes: [rect(x, top + 6, inner, 1, theme.muted, 0, ' opacity="0.4"')], height: 14 };
    case 'footer':
      return {
        shapes: [rect(margin, top, column, 48, theme.background), ...lines(x, top + 12, inner * 0.6, 2, theme.muted, 8), rect(x, top + 32, inner * 0.45, 3, theme.muted, 1)],
        height: 48,
      };
  }
}

/** The blank design: an empty, dashed area for the user's own content above the footer. */
function drawBlankArea(theme: Theme, top: number, h: number): Shape[] {
  const middle = top + h / 2;
  return [
    `<rect x="${margin + 16}" y="${top + 16}" width="${column - 32}" height="${h - 32}" rx="6" fill="none" stroke="${theme.muted}" stroke-width="1.5" stroke-dasharray="6 5"/>`,
    rect(width / 2 - 12, middle - 1.5, 24, 3, theme.muted, 1),
    rect(width / 2 - 1.5, middle - 12, 3, 24, theme.muted, 1),
  ];
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The SVG document of a design's preview (320 x 440). */
export function renderPreviewSvg(name: string, design: Design, isBlank: boolean): string {
  const { theme } = design;
  const shapes: Shape[] = [];
  let top = margin;
  const footerHeight = 48;
  if (isBlank) {
    const area = height - 2 * margin - footerHeight;
    shapes.push(...drawBlankArea(theme, top, area));
    top += area;
  }
  for (const block of design.blocks) {
    const drawn = drawBlock(block, theme, top);
    shapes.push(...drawn.shapes);
    top += drawn.height;
  }
  const columnHeight = Math.min(top, height - margin) - margin;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escape(name)}">`,
    `<title>${escape(name)}</title>`,
    rect(0, 0, width, height, theme.background),
    `<clipPath id="column"><rect x="${margin}" y="${margin}" width="${column}" height="${columnHeight}" rx="8"/></clipPath>`,
    `<g clip-path="url(#column)">`,
    rect(margin, margin, column, columnHeight, theme.surface),
    ...shapes,
    '</g>',
    '</svg>',
  ].join('\n');
}
