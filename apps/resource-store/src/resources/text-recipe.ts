/** Whether a media type is JSON (`application/json` or a `+json` suffix type). */
export function isJsonMimeType(mimeType: string | undefined): boolean {
  if (!mimeType) return false;
  const essence = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || essence.endsWith('+json');
}

/**
 * Fills a template's text recipe: `{var}` becomes the variable's value. For a JSON template the value
 * is JSON-string-escaped, so a URI holding `"` or `\` cannot break out of the string it lands in
 * (S-213: a resource's URI is validated input). Placeholders naming no variable are left as they are.
 */
export function fillTextRecipe(recipe: string, values: Record<string, string>, mimeType: string | undefined): string {
  const json = isJsonMimeType(mimeType);
  return recipe.replace(/\{([A-Za-z0-9_]+)\}/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) return placeholder;
    return json ? JSON.stringify(value).slice(1, -1) : value;
  });
}
