/** One control of a form that a browser would submit (name, value) or offer as a submit button. */
export interface FormField {
  name: string;
  value: string;
  /** The input type, lower-case (`text`, `hidden`, `password`, `submit`, ...; `textarea` for a textarea). */
  type: string;
}

/** A `<form>` as the sign-in and consent pages render it (their contract: id, method, action, fields). */
export interface HtmlForm {
  id?: string;
  /** Lower-case; `get` when the attribute is missing, as in HTML. */
  method: string;
  /** The `action` attribute with entities decoded; `undefined` when missing (the form posts to its page). */
  action?: string;
  enctype?: string;
  /** Successful controls in document order: named inputs (checked ones for checkbox/radio) and textareas. */
  fields: FormField[];
  /** Named submit buttons; a browser sends the one the user activated. */
  submitters: FormField[];
}

const FORM = /<form\b([^>]*)>([\s\S]*?)<\/form\s*>/gi;
const INPUT = /<input\b([^>]*)>/gi;
const BUTTON = /<button\b([^>]*)>/gi;
const TEXTAREA = /<textarea\b([^>]*)>([\s\S]*?)<\/textarea\s*>/gi;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/**
 * Finds the forms of an HTML page with the tolerance of a browser for attribute quoting and case,
 * ignoring comments. It is not a general HTML parser: it reads what server-rendered forms contain
 * (inputs, buttons, textareas), which is all the sign-in and consent pages may use (no JavaScript).
 */
export function parseForms(html: string): HtmlForm[] {
  const withoutComments = html.replace(/<!--[\s\S]*?-->/g, '');
  const forms: HtmlForm[] = [];
  for (const match of withoutComments.matchAll(FORM)) {
    const attributes = parseAttributes(match[1] ?? '');
    const body = match[2] ?? '';
    const fields: FormField[] = [];
    const submitters: FormField[] = [];
    for (const input of body.matchAll(INPUT)) {
      const inputAttributes = parseAttributes(input[1] ?? '');
      const name = inputAttributes.get('name');
      const type = (inputAttributes.get('type') ?? 'text').toLowerCase();
      if (name === undefined || name === '' || inputAttributes.has('disabled')) continue;
      const value = inputAttributes.get('value') ?? (type === 'checkbox' || type === 'radio' ? 'on' : '');
      if (type === 'submit' || type === 'image') {
        submitters.push({ name, value, type });
        continue;
      }
      if ((type === 'checkbox' || type === 'radio') && !inputAttributes.has('checked')) continue;
      if (type === 'button' || type === 'reset' || type === 'file') continue;
      fields.push({ name, value, type });
    }
    for (const button of body.matchAll(BUTTON)) {
      const buttonAttributes = parseAttributes(button[1] ?? '');
      const type = (buttonAttributes.get('type') ?? 'submit').toLowerCase();
      const name = buttonAttributes.get('name');
      if (type === 'submit' && name !== undefined && name !== '' && !buttonAttributes.has('disabled')) {
        submitters.push({ name, value: buttonAttributes.get('value') ?? '', type: 'submit' });
      }
    }
    for (const textarea of body.matchAll(TEXTAREA)) {
      const textareaAttributes = parseAttributes(textarea[1] ?? '');
      const name = textareaAttributes.get('name');
      if (name === undefined || name === '' || textareaAttributes.has('disabled')) continue;
      fields.push({ name, value: decodeEntities((textarea[2] ?? '').replace(/^\r?\n/, '')), type: 'textarea' });
    }
    const id = attributes.get('id');
    const action = attributes.get('action');
    const enctype = attributes.get('enctype');
    forms.push({
      ...(id === undefined ? {} : { id }),
      method: (attributes.get('method') ?? 'get').toLowerCase(),
      ...(action === undefined ? {} : { action }),
      ...(enctype === undefined ? {} : { enctype: enctype.toLowerCase() }),
      fields,
      submitters,
    });
  }
  return forms;
}

/** The form with this `id`, if the page has one. */
export function findForm(html: string, id: string): HtmlForm | undefined {
  return parseForms(html).find((form) => form.id === id);
}

/** The value of a field (the first one of that name), if the form has it. */
export function fieldValue(form: HtmlForm, name: string): string | undefined {
  return form.fields.find((field) => field.name === name)?.value;
}

/** Attribute names are case-insensitive in HTML; the first occurrence of a name wins, as in browsers. */
function parseAttributes(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of source.matchAll(ATTRIBUTE)) {
    const name = (match[1] ?? '').toLowerCase();
    if (name === '' || attributes.has(name)) continue;
    attributes.set(name, decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return attributes;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references a server-side template escaper produces (named basics, decimal, hex). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, reference: string) => {
    if (reference.startsWith('#x') || reference.startsWith('#X')) return safeCodePoint(Number.parseInt(reference.slice(2), 16), whole);
    if (reference.startsWith('#')) return safeCodePoint(Number.parseInt(reference.slice(1), 10), whole);
    return NAMED_ENTITIES[reference.toLowerCase()] ?? whole;
  });
}

function safeCodePoint(codePoint: number, fallback: string): string {
  return Number.isInteger(codePoint) && codePoint >= 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : fallback;
}
