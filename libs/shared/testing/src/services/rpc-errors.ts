import { RpcError } from '@mcp-platform/shared-messaging';

/** The wire error a rejected bus request carried; fails when the request succeeded or failed otherwise. */
export async function errorOf(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}
