import { DEFAULT_ADMIN_UPLOAD_LIMIT_BYTES, type ResolvedAuthorizationServerOptions } from '../authorization-server.options';

/** Injection token of the admin API's `AdminApiSettings`. */
export const ADMIN_API_SETTINGS = Symbol('ADMIN_API_SETTINGS');

/** Controller path of the admin API (no global prefix: in the embedded host it shares the origin with MCP). */
export const ADMIN_API_PATH = 'admin/v1';

/** Where the OpenAPI document and the Swagger UI are served. */
export const ADMIN_OPENAPI_JSON_PATH = '/admin/openapi.json';
export const ADMIN_DOCS_PATH = '/admin/docs';

/** The admin API's URLs, derived once from the authorization server's options. */
export interface AdminApiSettings {
  /** `AUTH_PUBLIC_URL`: the origin (with any path prefix) serving the API, its document and its metadata. */
  publicUrl: string;
  /** `${AUTH_PUBLIC_URL}/admin/v1`: the API's base URL and the audience (resource indicator) of its tokens. */
  audience: string;
  /** The authorization server that issues the API's tokens (`${AUTH_PUBLIC_URL}/oauth`). */
  issuer: string;
  /** The API's Protected Resource Metadata (RFC 9728 §3.1: the well-known segment inserted before the path). */
  resourceMetadataUrl: string;
  /** The session broker's public URL; a virtual server's MCP URL is `${mcpPublicUrl}/<tenant>/<server>/mcp`. */
  mcpPublicUrl: string;
  /** Largest raw resource upload, in bytes (`ADMIN_UPLOAD_LIMIT_BYTES`). */
  uploadLimitBytes: number;
}

/** The admin API's settings from the resolved options. */
export function adminApiSettings(
  options: Pick<ResolvedAuthorizationServerOptions, 'publicUrl' | 'issuer' | 'adminAudience' | 'mcpPublicUrl'> &
    Partial<Pick<ResolvedAuthorizationServerOptions, 'adminUploadLimitBytes'>>,
): AdminApiSettings {
  return {
    publicUrl: options.publicUrl,
    audience: options.adminAudience,
    issuer: options.issuer,
    resourceMetadataUrl: `${options.publicUrl}/.well-known/oauth-protected-resource/${ADMIN_API_PATH}`,
    mcpPublicUrl: options.mcpPublicUrl,
    uploadLimitBytes: options.adminUploadLimitBytes ?? DEFAULT_ADMIN_UPLOAD_LIMIT_BYTES,
  };
}
