import { describe, expect, it } from 'vitest';
import { fixedSizeChunks } from './upload-chunks';

async function* piecesOf(...sizes: number[]): AsyncGenerator<Uint8Array> {
  let next = 0;
  for (const size of sizes) {
    yield Uint8Array.from({ length: size }, () => next++ % 256);
  }
}

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks;
}

describe(fixedSizeChunks, () => {
  it('cuts pieces of any size into chunks of exactly the chunk size, the last one shorter, keeping every byte in order', async () => {
    const chunks = await collect(fixedSizeChunks(piecesOf(3, 10, 1, 0, 7), 4, 100));
    expect(chunks.map((chunk) => chunk.length)).toEqual([4, 4, 4, 4, 4, 1]);
    expect([...Buffer.concat(chunks)]).toEqual(Array.from({ length: 21 }, (_, index) => index));
  });

  it('yields nothing for an empty body, and no empty last chunk when the size divides evenly', async () => {
    await expect(collect(fixedSizeChunks(piecesOf(), 4, 100))).resolves.toEqual([]);
    expect((await collect(fixedSizeChunks(piecesOf(8), 4, 100))).map((chunk) => chunk.length)).toEqual([4, 4]);
  });

  it('accepts exactly the limit and refuses the piece that crosses it with 413 PAYLOAD_TOO_LARGE', async () => {
    await expect(collect(fixedSizeChunks(piecesOf(5, 5), 4, 10))).resolves.toHaveLength(3);
    await expect(collect(fixedSizeChunks(piecesOf(5, 5, 1), 4, 10))).rejects.toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: 'the upload is over the limit of 10 bytes',
    });
  });
});
