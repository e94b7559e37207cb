// The design template library. Templates are global, the same for every account, and ship as code
// (designs.ts), so listing them reads no table and needs no seeding.
import { renderDesignHtml, type Design } from './design';
import { libraryDesigns } from './designs';

/** A design template as the spec shows it. */
export interface DesignTemplate {
  id: number;
  template_name: string;
  /** File name under `assets/previews/`, served by the templates family. */
  preview_image: string;
  /** The design in the block format of design.ts, as JSON text. */
  json_code: string;
  html_code: string;
  is_blank: 0 | 1;
  /** Null: library templates are code, never rows that were created or changed. */
  created_at: string | null;
  updated_at: string | null;
}

/** The id the spec gives the blank template, chosen when a send supplies its own design. */
export const BLANK_TEMPLATE_ID = 1;

export function previewFileName(slug: string): string {
  return `${slug}.svg`;
}

function toTemplate(entry: (typeof libraryDesigns)[number]): DesignTemplate {
  return Object.freeze({
    id: entry.id,
    template_name: entry.name,
    preview_image: previewFileName(entry.slug),
    json_code: JSON.stringify(entry.design),
    html_code: renderDesignHtml(entry.design, entry.name),
    is_blank: entry.isBlank ? 1 : 0,
    created_at: null,
    updated_at: null,
  });
}

// Rendered once per container; the library never changes while it runs.
const templates: readonly DesignTemplate[] = Object.freeze(libraryDesigns.map(toTemplate));
const templatesById = new Map(templates.map((template) => [template.id, template]));

/** Every template, the blank one first. */
export function listDesignTemplates(): readonly DesignTemplate[] {
  return templates;
}

/** A template by id (single sends and automation emails name one); undefined when unknown. */
export function findDesignTemplate(id: number): DesignTemplate | undefined {
  return templatesById.get(id);
}

/** The design of the template whose preview has this file name (the preview route draws it). */
export function designByPreviewFile(fileName: string): { name: string; design: Design; isBlank: boolean } | undefined {
  const entry = libraryDesigns.find((candidate) => previewFileName(candidate.slug) === fileName);
  return entry ? { name: entry.name, design: entry.design, isBlank: entry.isBlank } : undefined;
}
