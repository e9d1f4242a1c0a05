import { AdminApiError, AdminErrorCode } from './admin.errors';

/**
 * Cuts a body arriving in pieces of any size into chunks of exactly `chunkBytes` (the last one
 * shorter, none when the body is empty), so each crosses the bus as one bounded message. More than
 * `limitBytes` in all is refused (413 `PAYLOAD_TOO_LARGE`) as soon as the piece crossing it arrives.
 */
export async function* fixedSizeChunks(source: AsyncIterable<Uint8Array>, chunkBytes: number, limitBytes: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let totalBytes = 0;
  for await (const piece of source) {
    totalBytes += piece.length;
    if (totalBytes > limitBytes) throw uploadTooLarge(limitBytes);
    let rest = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    while (rest.length > 0) {
      const taken = rest.subarray(0, chunkBytes - pendingBytes);
      pending.push(taken);
      pendingBytes += taken.length;
      rest = rest.subarray(taken.length);
      if (pendingBytes === chunkBytes) {
        yield Buffer.concat(pending, chunkBytes);
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

/** An upload over the admin API's own limit (`ADMIN_UPLOAD_LIMIT_BYTES`). */
export function uploadTooLarge(limitBytes: number): AdminApiError {
  return new AdminApiError(AdminErrorCode.PayloadTooLarge, `the upload is over the limit of ${limitBytes} bytes`);
}
