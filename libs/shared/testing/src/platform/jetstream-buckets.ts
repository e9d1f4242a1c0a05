import { connect } from 'nats';

/**
 * Deletes the JetStream KV buckets (streams `KV_<prefix>…`) a run created under its bucket prefix,
 * so repeated runs leave nothing behind on the shared NATS server. Returns the deleted bucket streams.
 */
export async function deleteBucketsWithPrefix(natsUrl: string, prefix: string): Promise<string[]> {
  if (prefix.length < 4) throw new Error(`refusing to delete buckets by the short prefix "${prefix}"`);
  const connection = await connect({ servers: natsUrl.split(','), name: 'e2e-cleanup', timeout: 5_000 });
  try {
    const manager = await connection.jetstreamManager();
    const deleted: string[] = [];
    for await (const stream of manager.streams.list()) {
      const streamName = stream.config.name;
      if (streamName.startsWith(`KV_${prefix}`)) {
        await manager.streams.delete(streamName);
        deleted.push(streamName);
      }
    }
    return deleted;
  } finally {
    await connection.close();
  }
}
