import { type WireError, WireErrorCode } from '@mcp-platform/protocol-contracts';

/**
 * A typed failure of a bus call. Handlers throw it to answer with an error envelope; the typed
 * client throws it when the reply is an error envelope, or when no reply came in time.
 */
export class RpcError extends Error {
  constructor(
    readonly code: WireErrorCode,
    message: string,
    readonly data?: unknown,
    readonly errorId?: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  static fromWire(error: WireError): RpcError {
    return new RpcError(error.code, error.message, error.data, error.errorId);
  }

  toWire(): WireError {
    return {
      code: this.code,
      message: this.message,
      ...(this.data === undefined ? {} : { data: this.data }),
      ...(this.errorId === undefined ? {} : { errorId: this.errorId }),
    };
  }
}

export const isRpcError = (error: unknown): error is RpcError => error instanceof RpcError;
export { WireErrorCode };
