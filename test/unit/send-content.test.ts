// Which design a send mails: its own HTML, else its own JSON design rendered, else the library template.
import { findDesignTemplate } from '../../shared/templates/repository';
import { designHtmlOf } from '../../shared/delivery/send-content';

const jsonDesign = JSON.stringify({
  version: 1,
  preheader: '',
  theme: { background: '#eeeeee', surface: '#ffffff', text: '#111111', muted: '#666666', accent: '#0055aa', accentText: '#ffffff', font: 'Arial' },
  blocks: [{ type: 'text', text: 'Hi ((first_name))' }],
});

describe('the design of a send', () => {
  test('custom HTML wins', () => {
    expect(designHtmlOf({ template_id: 2, template_json: null, template_html: '<p>Mine</p>' }, 'Subject')).toBe('<p>Mine</p>');
  });

  test('a custom JSON design is rendered, placeholders kept for the renderer', () => {
    const html = designHtmlOf({ template_id: 1, template_json: jsonDesign, template_html: null }, 'Subject');
    expect(html).toContain('<title>Subject</title>');
    expect(html).toContain('Hi ((first_name))');
  });

  test('without a custom design, or with JSON in another format, the library template is used', () => {
    const library = findDesignTemplate(2)?.html_code;
    expect(library).toBeDefined();
    expect(designHtmlOf({ template_id: 2, template_json: null, template_html: null }, 'Subject')).toBe(library);
    expect(designHtmlOf({ template_id: 2, template_json: '{"body":{"rows":[]}}', template_html: '' }, 'Subject')).toBe(library);
  });

  test('an unknown template without a design cannot be mailed', () => {
    expect(() => designHtmlOf({ template_id: 9999, template_json: null, template_html: null }, 'Subject')).toThrow('Template 9999 does not exist');
  });
});
