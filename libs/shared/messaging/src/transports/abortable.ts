import { WireErrorCode } from '@mcp-platform/protocol-contracts';
import { RpcError } from '../bus/rpc-error';

/** Races a promise against an abort signal; an abort rejects with `CANCELLED`. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new RpcError(WireErrorCode.Cancelled, 'cancelled by the caller'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new RpcError(WireErrorCode.Cancelled, 'cancelled by the caller'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
