/** Whether a JSON value is an object (not `null`, not an array): what MCP's params, results and capabilities are. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
