import { gzipSync } from 'node:zlib';
import { strToU8, type Zippable, zipSync } from 'fflate';
import { type Header, pack } from 'tar-stream';

/** Archives built in memory for upload tests (skill folders): a zip, a tar, a gzipped tar. */

/** A zip of `files` by path (text or bytes), deflated. */
export function zipArchive(files: Record<string, string | Uint8Array>): Buffer {
  const entries: Zippable = {};
  for (const [path, content] of Object.entries(files)) entries[path] = typeof content === 'string' ? strToU8(content) : content;
  return Buffer.from(zipSync(entries));
}

/** A tar of `entries`: each a header (a file by default; folders, links...) with its text content. */
export async function tarArchive(entries: Array<Partial<Header> & { name: string; content?: string }>): Promise<Buffer> {
  const archive = pack();
  for (const { content, ...header } of entries) archive.entry(header, content ?? '');
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A gzipped tar of `files` by path. */
export async function tarGzArchive(files: Record<string, string>): Promise<Buffer> {
  return gzipSync(await tarArchive(Object.entries(files).map(([name, content]) => ({ name, content }))));
}
