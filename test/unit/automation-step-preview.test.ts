// What an automation step's design link shows and which preview its image link names.
import { stepDesignHtml, stepPreviewFile } from '../../functions/automations/step-preview';
import type { AutomationStep } from '../../shared/automations/steps';
import { renderDesignHtml } from '../../shared/templates/design';
import { findDesignTemplate } from '../../shared/templates/repository';
import { libraryDesigns } from '../../shared/templates/designs';

function step(overrides: Partial<AutomationStep> = {}): AutomationStep {
  return {
    id: 1,
    user_id: 1,
    automation_id: 1,
    sender_id: 1,
    template_id: 2,
    subject: 'Hello',
    waiting_period: 0,
    waiting_type: 'instantly',
    utr: '11111111-1111-4111-8111-111111111111',
    preview_img: 'newsletter.svg',
    template_json: null,
    template_html: null,
    created_at: '2030-01-01T00:00:00.000000Z',
    updated_at: '2030-01-01T00:00:00.000000Z',
    ...overrides,
  };
}

describe('stepDesignHtml', () => {
  it("prefers the step's own HTML", () => {
    expect(stepDesignHtml(step({ template_html: '<p>mine</p>' }))).toBe('<p>mine</p>');
  });

  it('renders a JSON design in the library format, titled with the subject', () => {
    const design = libraryDesigns[1]?.design;
    expect(stepDesignHtml(step({ template_json: JSON.stringify(design), subject: 'Monthly' }))).toBe(renderDesignHtml(design as NonNullable<typeof design>, 'Monthly'));
  });

  it.each(['{"some": "editor format"}', 'not json', '{"version": 1, "theme": {}, "blocks": [{"type": "columns"}]}'])(
    'falls back to the library template for JSON it cannot render: %s',
    (json) => {
      expect(stepDesignHtml(step({ template_json: json, template_id: 3 }))).toBe(findDesignTemplate(3)?.html_code);
    },
  );

  it('uses the blank template when the template id is no longer in the library', () => {
    expect(stepDesignHtml(step({ template_id: 999 }))).toBe(findDesignTemplate(1)?.html_code);
  });
});

describe('stepPreviewFile', () => {
  it('uses preview_img when it names a library preview, else the template preview', () => {
    expect(stepPreviewFile(step({ template_id: 3, preview_img: 'newsletter.svg' }))).toBe('newsletter.svg');
    expect(stepPreviewFile(step({ template_id: 3, preview_img: '../../etc/passwd' }))).toBe(findDesignTemplate(3)?.preview_image);
  });
});
