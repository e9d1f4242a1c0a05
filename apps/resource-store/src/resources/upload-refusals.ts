import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';

/** The refusals every chunked upload shares, a resource's content or a skill's archive. */

/** An upload that is not (or no longer) staged. */
export function unknownUpload(uploadId: string): RpcError {
  return new RpcError(WireErrorCode.NotFound, `Upload ${uploadId} not found (committed, aborted, or dropped after being idle)`, { uploadId });
}

/** A commit naming more bytes than arrived; the upload is dropped. */
export function incompleteUpload(uploadId: string, receivedBytes: number, totalBytes: number): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, `Upload ${uploadId} received ${receivedBytes} bytes, not ${totalBytes}`, { uploadId, receivedBytes });
}
