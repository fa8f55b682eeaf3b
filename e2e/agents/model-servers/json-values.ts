/** Reading a parsed JSON body whose shape the client decides. */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (isObject(value)) {
    if (typeof value.text === 'string') return value.text;
    if ('output' in value) return textOf(value.output);
    if ('content' in value) return textOf(value.content);
    return JSON.stringify(value);
  }
  // What is left of a parsed JSON value: a number, a boolean or null.
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}
