// The design format of `json_code` (version 1) and its rendering to email HTML: table layout, inline
// styles, a 600 px column that narrows on phones, and the compliance footer every mail carries.
//
// A design is `{version: 1, preheader, theme, blocks}`. Blocks, top to bottom:
//   header   {brand}                          brand name bar
//   hero     {heading, text?, button?}        accent-coloured opening
//   heading  {text}                           section title
//   text     {text}                           paragraphs, separated by a blank line
//   button   {label, url}                     call to action
//   columns  {items: [{title, text}]}         two or three side by side (stacked on phones)
//   details  {rows: [{label, value}], total?} label/value table (event details, receipts)
//   divider  {}                               thin rule
//   footer   {note?}                          sender name and address, unsubscribe link
// Text may contain `((name))` placeholders from the dynamic-content list; it is HTML-escaped.

export interface Theme {
  /** Page behind the 600 px column. */
  background: string;
  /** The column itself. */
  surface: string;
  text: string;
  muted: string;
  accent: string;
  /** Text on the accent colour. */
  accentText: string;
  font: string;
}

export interface Button {
  label: string;
  url: string;
}

export type Block =
  | { type: 'header'; brand: string }
  | { type: 'hero'; heading: string; text?: string; button?: Button }
  | { type: 'heading'; text: string }
  | { type: 'text'; text: string }
  | ({ type: 'button' } & Button)
  | { type: 'columns'; items: { title: string; text: string }[] }
  | { type: 'details'; rows: { label: string; value: string }[]; total?: { label: string; value: string } }
  | { type: 'divider' }
  | { type: 'footer'; note?: string };

export interface Design {
  version: 1;
  /** Shown by mail clients beside the subject; a send's own preheader replaces it. */
  preheader: string;
  theme: Theme;
  blocks: Block[];
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function row(content: string, padding: string, extra = ''): string {
  return `<tr><td style="padding:${padding};${extra}">${content}</td></tr>`;
}

function paragraphs(text: string, theme: Theme, size = 16, color = theme.text): string {
  return text
    .split(/\n{2,}/)
    .map((part) => `<p style="margin:0 0 16px 0;font-family:${theme.font};font-size:${size}px;line-height:1.5;color:${color};">${escape(part).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

function button(target: Button, theme: Theme, inverse = false): string {
  const fill = inverse ? theme.surface : theme.accent;
  const ink = inverse ? theme.accent : theme.accentText;
  return (
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0;"><tr>` +
    `<td align="center" bgcolor="${fill}" style="border-radius:6px;background-color:${fill};">` +
    `<a href="${escape(target.url)}" target="_blank" style="display:inline-block;padding:12px 28px;font-family:${theme.font};font-size:16px;font-weight:bold;line-height:1.2;color:${ink};text-decoration:none;border-radius:6px;">${escape(target.label)}</a>` +
    `</td></tr></table>`
  );
}

function heading(text: string, theme: Theme, size: number, color = theme.text): string {
  return `<h2 style="margin:0 0 12px 0;font-family:${theme.font};font-size:${size}px;line-height:1.25;font-weight:bold;color:${color};">${escape(text)}</h2>`;
}

function columns(items: { title: string; text: string }[], theme: Theme): string {
  const width = Math.floor(100 / items.length);
  const cells = items
    .map(
      (item) =>
        `<td class="column" width="${width}%" valign="top" style="padding:0 8px 16px 8px;">` +
        `<h3 style="margin:0 0 8px 0;font-family:${theme.font};font-size:17px;line-height:1.3;color:${theme.text};">${escape(item.title)}</h3>` +
        paragraphs(item.text, theme, 15, theme.muted) +
        `</td>`,
    )
    .join('');
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr>${cells}</tr></table>`;
}

function details(block: Extract<Block, { type: 'details' }>, theme: Theme): string {
  const line = (label: string, value: string, strong: boolean) =>
    `<tr><td style="padding:10px 0;border-bottom:1px solid ${theme.background};font-family:${theme.font};font-size:15px;color:${theme.muted};">${escape(label)}</td>` +
    `<td align="right" style="padding:10px 0;border-bottom:1px solid ${theme.background};font-family:${theme.font};font-size:15px;color:${theme.text};${strong ? 'font-weight:bold;' : ''}">${escape(value)}</td></tr>`;
  const rows = block.rows.map((entry) => line(entry.label, entry.value, false)).join('');
  const total = block.total ? line(block.total.label, block.total.value, true) : '';
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">${rows}${total}</table>`;
}

/** Every mail names its sender and offers unsubscribing (CAN-SPAM, RFC 8058's page counterpart). */
function footer(note: string | undefined, theme: Theme): string {
  const small = `font-family:${theme.font};font-size:12px;line-height:1.5;color:${theme.muted};`;
  return (
    (note ? `<p style="margin:0 0 8px 0;${small}">${escape(note)}</p>` : '') +
    `<p style="margin:0 0 8px 0;${small}">((sender_name))<br>((sender_address))</p>` +
    `<p style="margin:0;${small}">You are receiving this email at ((email)). ` +
    `<a href="((unsubscribe_preferences))" target="_blank" style="color:${theme.muted};text-decoration:underline;">Unsubscribe or manage your preferences</a></p>`
  );
}

function renderBlock(block: Block, theme: Theme): string {
  switch (block.type) {
    case 'header':
      return row(
        `<span style="font-family:${theme.font};font-size:22px;font-weight:bold;letter-spacing:0.5px;color:${theme.accent};">${escape(block.brand)}</span>`,
        '24px 32px',
        `border-bottom:1px solid ${theme.background};`,
      );
    case 'hero':
      return row(
        heading(block.heading, theme, 28, theme.accentText) +
          (block.text ? paragraphs(block.text, theme, 17, theme.accentText) : '') +
          (block.button ? button(block.button, theme, true) : ''),
        '40px 32px',
        `background-color:${theme.accent};`,
      );
    case 'heading':
      return row(heading(block.text, theme, 22), '24px 32px 0 32px');
    case 'text':
      return row(paragraphs(block.text, theme), '16px 32px 0 32px');
    case 'button':
      return row(button(block, theme), '8px 32px 24px 32px');
    case 'columns':
      return row(columns(block.items, theme), '16px 24px 8px 24px');
    case 'details':
      return row(details(block, theme), '8px 32px 24px 32px');
    case 'divider':
      return row(`<div style="height:1px;line-height:1px;font-size:1px;background-color:${theme.background};">&nbsp;</div>`, '8px 32px');
    case 'footer':
      return row(footer(block.note, theme), '24px 32px 32px 32px', `background-color:${theme.background};`);
  }
}

/** The design as a complete HTML document, ready for placeholder substitution and sending. */
export function renderDesignHtml(design: Design, title: string): string {
  const { theme } = design;
  const blocks = design.blocks.map((block) => renderBlock(block, theme)).join('\n');
  return [
    '<!DOCTYPE html>',
    '<html lang="en" xmlns="http://www.w3.org/1999/xhtml">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="x-apple-disable-message-reformatting">',
    '<meta name="color-scheme" content="light only">',
    `<title>${escape(title)}</title>`,
    // Clients that keep <style> (Apple Mail, iOS, Gmail apps) stack the columns on narrow screens;
    // the rest get the inline styles, which already fit 600 px.
    '<style>body{margin:0;padding:0;-webkit-text-size-adjust:100%;-ms-text-size-adjust:100%;}table{border-collapse:collapse;}' +
      'a{text-decoration:none;}@media only screen and (max-width:620px){.container{width:100%!important;}' +
      '.column{display:block!important;width:100%!important;box-sizing:border-box;}}</style>',
    '</head>',
    `<body style="margin:0;padding:0;background-color:${theme.background};">`,
    `<span class="preheader" style="display:none!important;visibility:hidden;mso-hide:all;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;">${escape(design.preheader)}</span>`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:${theme.background};">`,
    '<tr><td align="center" style="padding:24px 12px;">',
    // Outlook for Windows ignores max-width; a fixed-width ghost table holds it to 600 px.
    '<!--[if mso]><table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->',
    `<table role="presentation" class="container" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;width:100%;background-color:${theme.surface};border-radius:8px;overflow:hidden;">`,
    blocks,
    '</table>',
    '<!--[if mso]></td></tr></table><![endif]-->',
    '</td></tr></table>',
    '</body>',
    '</html>',
  ].join('\n');
}
