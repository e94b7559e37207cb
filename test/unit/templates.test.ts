// The design template library: spec fields, the blank template, and email-safe, placeholder-correct HTML.
import { isDynamicContentName, placeholdersIn } from '../../shared/rendering/dynamic-content';
import { renderDesignHtml, type Design } from '../../shared/templates/design';
import { BLANK_TEMPLATE_ID, designByPreviewFile, findDesignTemplate, listDesignTemplates } from '../../shared/templates/repository';

const templates = listDesignTemplates();
const designs = templates.filter((template) => template.is_blank === 0);

describe('design template library', () => {
  it('has the spec fields in order, the blank template first as id 1, and unique ids and previews', () => {
    for (const template of templates) {
      expect(Object.keys(template)).toEqual(['id', 'template_name', 'preview_image', 'json_code', 'html_code', 'is_blank', 'created_at', 'updated_at']);
    }
    expect(templates[0]).toMatchObject({ id: BLANK_TEMPLATE_ID, template_name: 'Blank', preview_image: 'blank.svg', is_blank: 1 });
    expect(templates.filter((template) => template.is_blank === 1)).toHaveLength(1);
    expect(new Set(templates.map((template) => template.id)).size).toBe(templates.length);
    expect(new Set(templates.map((template) => template.preview_image)).size).toBe(templates.length);
    expect(designs.length).toBeGreaterThanOrEqual(5);
  });

  it('finds a template by id, and nothing for an unknown one', () => {
    expect(findDesignTemplate(2)?.template_name).toBe('Monthly Newsletter');
    expect(findDesignTemplate(999)).toBeUndefined();
  });

  it('keeps json_code as the version 1 design that html_code is rendered from', () => {
    for (const template of templates) {
      const design = JSON.parse(template.json_code) as Design;
      expect(design.version).toBe(1);
      expect(renderDesignHtml(design, template.template_name)).toBe(template.html_code);
      expect(designByPreviewFile(template.preview_image)?.design).toEqual(design);
    }
  });

  it.each(templates.map((template) => [template.template_name, template] as const))('%s uses only dynamic-content placeholders', (_name, template) => {
    const unknown = placeholdersIn(template.html_code + template.json_code).filter((name) => !isDynamicContentName(name));
    expect(unknown).toEqual([]);
  });

  it.each(templates.map((template) => [template.template_name, template] as const))('%s has the compliance footer and an email-safe frame', (_name, template) => {
    const html = template.html_code;
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('((sender_name))');
    expect(html).toContain('((sender_address))');
    expect(html).toMatch(/<a href="\(\(unsubscribe_preferences\)\)"[^>]*>[^<]+<\/a>/);
    expect(html).toContain('max-width:600px');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toMatch(/<span class="preheader" style="display:none[^"]*">/);
    expect(html).toContain('role="presentation"');
    // Mail clients drop these, or they open a security hole; designs never rely on them.
    expect(html).not.toMatch(/<(script|iframe|form|video|link|img)\b/i);
    expect(html).not.toMatch(/<div[^>]*style="[^"]*(flex|grid)/);
  });

  it('gives the real designs a greeting placeholder and a preheader text', () => {
    for (const template of designs) {
      expect(template.html_code).toContain('((first_name))');
      expect((JSON.parse(template.json_code) as Design).preheader.length).toBeGreaterThan(10);
    }
  });

  it('escapes text in a design', () => {
    const html = renderDesignHtml(
      {
        version: 1,
        preheader: 'a < b',
        theme: { background: '#fff', surface: '#fff', text: '#000', muted: '#555', accent: '#00f', accentText: '#fff', font: 'Arial' },
        blocks: [{ type: 'text', text: '<script>alert(1)</script> & "quotes"' }, { type: 'button', label: 'Go', url: 'https://example.com/?a=1&b="2"' }],
      },
      'T & <T>',
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
    expect(html).toContain('href="https://example.com/?a=1&amp;b=&quot;2&quot;"');
    expect(html).toContain('<title>T &amp; &lt;T&gt;</title>');
  });
});
