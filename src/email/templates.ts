import Mustache from 'mustache';
import type { ErrorDetail } from '../errors';

export interface EmailTemplates {
  subject: string;
  html: string | null;
  text: string | null;
}

export interface RenderedEmail {
  subject: string;
  html?: string;
  text?: string;
}

const unescaped = { escape: (value: unknown) => String(value) };

/** `{{name}}` is HTML-escaped in the html body (Mustache's default) and left as is in the subject and text body. */
export function renderEmail(templates: EmailTemplates, values: Record<string, string>): RenderedEmail {
  // Without a prototype, `{{constructor}}` renders empty instead of Object's source text.
  const variables: Record<string, string> = Object.assign(Object.create(null), values);
  return {
    subject: Mustache.render(templates.subject, variables, {}, unescaped),
    ...(templates.html !== null ? { html: Mustache.render(templates.html, variables) } : {}),
    ...(templates.text !== null ? { text: Mustache.render(templates.text, variables, {}, unescaped) } : {}),
  };
}

/** Syntax errors of the given templates (unclosed sections, unbalanced tags), as error details. */
export function templateErrors(templates: Partial<Record<'subject' | 'html' | 'text', string | null>>): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  for (const [path, template] of Object.entries(templates)) {
    if (typeof template !== 'string') continue;
    try {
      Mustache.parse(template);
    } catch (error) {
      errors.push({ path, message: `invalid Mustache template: ${error instanceof Error ? error.message : String(error)}` });
    }
  }
  return errors;
}
