import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';

/** The scheme of skill files (SEP-2640): resources written and removed only with their skill (`skills/`). */
export const SKILL_URI_SCHEME = 'skill://';

/**
 * Refuses a plain resource write at a `skill://` URI: those are a skill's files, written and removed
 * only with their skill (`INVALID_PARAMS` with the path in `data.issues`, as for a bad definition).
 */
export function refuseSkillUri(uri: string): void {
  if (!uri.startsWith(SKILL_URI_SCHEME)) return;
  const message = 'skill:// URIs are the files of skills: upload or delete the skill through the skills API instead';
  throw new RpcError(WireErrorCode.InvalidParams, `${uri}: ${message}`, { issues: [{ path: ['uri'], message }] });
}
