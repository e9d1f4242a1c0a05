import { ADMIN_SCOPE, BASELINE_SCOPE } from '@mcp-platform/protocol-mcp';

/** What the platform's own scopes let an application do, as the consent page says it. */
export const PLATFORM_SCOPE_DESCRIPTIONS: ReadonlyMap<string, string> = new Map([
  [BASELINE_SCOPE, 'Connect to this MCP server and use what it offers without further permission: its tools, resources and prompts.'],
  [ADMIN_SCOPE, 'Use the administration API with the rights of your administrator role.'],
  ['openid', 'Learn which account you signed in with.'],
  ['offline_access', 'Keep its access while you are away, renewing it without asking you again.'],
]);

/** A scope with the sentence that says what it lets an application do. */
export interface DescribedScope {
  scope: string;
  description: string;
}

/**
 * Every scope with a description for people: the platform's own scopes have fixed words; a tenant's
 * scopes have the words its administrators gave them (`Role.scopeDescriptions`); any other scope gets a
 * generic sentence naming it, so the page never shows a bare scope name.
 */
export function describeScopes(scopes: readonly string[], tenantDescriptions: ReadonlyMap<string, string> = new Map()): DescribedScope[] {
  return scopes.map((scope) => ({
    scope,
    description:
      PLATFORM_SCOPE_DESCRIPTIONS.get(scope) ??
      tenantDescriptions.get(scope) ??
      `Use what this server keeps behind the “${scope}” permission (its administrator has not described it).`,
  }));
}
