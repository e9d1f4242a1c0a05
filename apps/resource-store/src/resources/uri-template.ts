import { resourceStore } from '@mcp-platform/protocol-contracts';

/**
 * RFC 6570 level-1 templates (S-204). The parser lives with the contracts because the definition
 * schemas validate templates when they are written (here and in the admin API); reads match with it.
 */
export type UriTemplate = resourceStore.UriTemplate;
export const parseUriTemplate = resourceStore.parseUriTemplate;
export const matchUriTemplate = resourceStore.matchUriTemplate;
