import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { UpstreamOrigin } from '../store/store.types';

/** The `data.code` of an administrator's write refused because an upstream item holds the key (the admin API answers 409). */
export const UPSTREAM_ITEM_CODE = 'UPSTREAM_ITEM';

/** What an administrator's write names: a resource by URI, a template, a prompt or a skill by name. */
export type AdministeredKind = 'resource' | 'resource template' | 'prompt' | 'skill';

/**
 * Refuses an administrator's write (put, delete, upload) of an item an upstream source serves: those
 * come from the tool executor (`putUpstreamItems`), which approves, changes and removes them. As for a
 * `skill://` URI, `INVALID_PARAMS` with the path in `data.issues`, and `data.code` `UPSTREAM_ITEM` with
 * the source, so the admin API answers 409 Conflict naming it.
 */
export function upstreamItemRefusal(kind: AdministeredKind, key: string, origin: UpstreamOrigin): RpcError {
  const message = `the ${kind} ${key} is served from upstream source ${origin.source}: it changes only with that source (its approvals in the tool executor)`;
  return new RpcError(WireErrorCode.InvalidParams, message, {
    code: UPSTREAM_ITEM_CODE,
    source: origin.source,
    issues: [{ path: [kind === 'resource' ? 'uri' : 'name'], message }],
  });
}
