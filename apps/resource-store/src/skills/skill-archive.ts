import { gunzipSync } from 'node:zlib';
import { SKILL_LIMITS as EXTENSION_LIMITS } from '@modelcontextprotocol/core/ext/skills';
import { Unzip, type UnzipFile, UnzipInflate } from 'fflate';
import { extract, type Header } from 'tar-stream';

/**
 * How large an unpacked skill may be: the extension's limits (core's `SKILL_LIMITS`: 512 files, 16 MiB over all files),
 * the archive's own size, and the compression ratio past which a small archive is a bomb, not a skill.
 */
export const SKILL_LIMITS = {
  maxFiles: EXTENSION_LIMITS.files,
  maxTotalBytes: EXTENSION_LIMITS.bytes,
  /** The archive as uploaded: the files' limit plus room for headers and a zip's directory. */
  maxArchiveBytes: EXTENSION_LIMITS.bytes + 1024 * 1024,
  /** Unpacked bytes per archive byte, checked once the unpacked files pass `ratioFloorBytes`. */
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
  maxPathLength: 1024,
} as const;

export type SkillLimits = { [K in keyof typeof SKILL_LIMITS]: number };

/** One file of an unpacked skill: its path inside the skill's folder (`/`-separated) and its bytes. */
export interface ArchiveFile {
  path: string;
  data: Buffer;
}

/** Why an archive is refused; `code` is what the admin API answers (400 `BAD_ARCHIVE`, 413 `SKILL_TOO_LARGE`). */
export class SkillArchiveError extends Error {
  constructor(
    readonly code: 'BAD_ARCHIVE' | 'SKILL_TOO_LARGE',
    message: string,
  ) {
    super(message);
  }
}

/** How much of a zip is handed to the inflater at once. */
const ZIP_SLICE_BYTES = 16 * 1024;

/** Folders and files an archiver adds by itself (macOS's resource forks and Finder state): never part of a skill. */
const ARCHIVER_JUNK = [/^__MACOSX(\/|$)/, /(^|\/)\.DS_Store$/];

/**
 * The files of a skill uploaded as a zip, a tar or a gzipped tar (told apart by their first bytes),
 * unpacked in memory within `limits`: past the file count, the total size or the ratio, unpacking
 * stops at once (a bomb never fills memory). Entry paths must be relative and stay inside the folder
 * (no `..`, no absolute or drive paths, no backslashes, no control characters); links, devices and
 * duplicate paths are refused. An archive of one folder holding the skill (`pdf-processing/SKILL.md`)
 * is read as that folder's content.
 */
export async function readSkillArchive(archive: Buffer, limits: SkillLimits = SKILL_LIMITS): Promise<ArchiveFile[]> {
  if (archive.length > limits.maxArchiveBytes) throw tooLarge(`The archive is ${archive.length} bytes, over the limit of ${limits.maxArchiveBytes}`);
  const budget = new UnpackBudget(archive.length, limits);
  const entries = isZip(archive) ? readZip(archive, budget) : await readTar(isGzip(archive) ? gunzip(archive, limits) : archive, budget);
  return withoutWrappingFolder(entries.filter((entry) => !ARCHIVER_JUNK.some((pattern) => pattern.test(entry.path))));
}

/** Counts what unpacking produced and stops it past a limit. */
class UnpackBudget {
  private files = 0;
  private bytes = 0;
  private readonly paths = new Set<string>();

  constructor(
    private readonly archiveBytes: number,
    private readonly limits: SkillLimits,
  ) {}

  /** A new file at `rawPath`: its safe path, once the file count allows it. */
  admit(rawPath: string): string {
    const path = safePath(rawPath, this.limits.maxPathLength);
    if (this.paths.has(path)) throw bad(`The archive holds ${path} twice`);
    this.paths.add(path);
    if (++this.files > this.limits.maxFiles) throw tooLarge(`The archive holds more than ${this.limits.maxFiles} files`);
    return path;
  }

  /** `length` more unpacked bytes. */
  spend(length: number): void {
    this.bytes += length;
    if (this.bytes > this.limits.ratioFloorBytes && this.bytes > this.archiveBytes * this.limits.maxRatio) {
      throw tooLarge(`The archive unpacks to more than ${this.limits.maxRatio} times its size: refused as a compression bomb`);
    }
    if (this.bytes > this.limits.maxTotalBytes) throw tooLarge(`The unpacked files pass ${this.limits.maxTotalBytes} bytes`);
  }
}

function readZip(archive: Buffer, budget: UnpackBudget): ArchiveFile[] {
  const files: ArchiveFile[] = [];
  let failure: unknown;
  const unzip = new Unzip((file: UnzipFile) => {
    if (failure !== undefined || file.name.endsWith('/')) return;
    try {
      const path = budget.admit(file.name);
      const chunks: Buffer[] = [];
      file.ondata = (error, chunk, final) => {
        if (failure !== undefined) return;
        try {
          if (error) throw bad(`The zip entry ${path} cannot be unpacked: ${error.message}`);
          budget.spend(chunk.length);
          chunks.push(Buffer.from(chunk));
          if (final) files.push({ path, data: Buffer.concat(chunks) });
        } catch (refusal) {
          failure = refusal;
          file.terminate();
        }
      };
      file.start();
    } catch (refusal) {
      failure = refusal;
    }
  });
  unzip.register(UnzipInflate);
  try {
    // Small slices: inflating one slice yields at most ~1,000 times its size (deflate's ceiling), so a
    // bomb is stopped after a few MiB of output instead of inflating whole in one call.
    for (let offset = 0; offset < archive.length && failure === undefined; offset += ZIP_SLICE_BYTES) {
      unzip.push(archive.subarray(offset, offset + ZIP_SLICE_BYTES), offset + ZIP_SLICE_BYTES >= archive.length);
    }
  } catch (error) {
    // fflate throws on an unknown compression method (or encryption) and on truncated data.
    failure ??= bad(`The zip archive cannot be read: ${(error as Error).message}`);
  }
  if (failure !== undefined) throw failure;
  return files;
}

async function readTar(tar: Buffer, budget: UnpackBudget): Promise<ArchiveFile[]> {
  if (!isTar(tar)) throw bad('The upload is neither a zip nor a tar archive (gzipped or not)');
  const files: ArchiveFile[] = [];
  const reader = extract();
  reader.end(tar);
  try {
    for await (const entry of reader) {
      const path = tarEntry(entry.header, budget);
      const chunks: Buffer[] = [];
      for await (const chunk of entry as AsyncIterable<Buffer>) {
        if (path === undefined) continue;
        budget.spend(chunk.length);
        chunks.push(chunk);
      }
      if (path !== undefined) files.push({ path, data: Buffer.concat(chunks) });
    }
  } catch (error) {
    reader.destroy();
    throw error instanceof SkillArchiveError ? error : bad(`The tar archive cannot be read: ${(error as Error).message}`);
  }
  return files;
}

/** The path a tar entry is stored under, `undefined` for a folder; anything but files and folders is refused. */
function tarEntry(header: Header, budget: UnpackBudget): string | undefined {
  switch (header.type) {
    case 'directory':
      safePath(header.name, Number.MAX_SAFE_INTEGER);
      return undefined;
    case 'file':
    case 'contiguous-file':
      return budget.admit(header.name);
    default:
      throw bad(`The tar entry ${header.name} is a ${header.type}: a skill holds only files and folders`);
  }
}

function gunzip(archive: Buffer, limits: SkillLimits): Buffer {
  // The tar around the files: a 512-byte header per file, two per long name, and the padding.
  const maxOutputLength = limits.maxTotalBytes + limits.maxFiles * 2048 + 10240;
  try {
    return gunzipSync(archive, { maxOutputLength });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(`The gzipped tar unpacks past ${maxOutputLength} bytes`);
    throw bad(`The gzip stream cannot be read: ${(error as Error).message}`);
  }
}

/** A relative, normalised `/` path that cannot leave the skill's folder; anything else is refused. */
export function safePath(raw: string, maxLength: number): string {
  const path = raw.replace(/^\.\//, '').replace(/\/+$/, '');
  if (path.length === 0) throw bad('An archive entry has an empty path');
  if (path.length > maxLength) throw bad(`The archive entry ${path.slice(0, 80)}… has a path longer than ${maxLength} characters`);
  if (/[\u0000-\u001f\u007f\\]/.test(path)) throw bad(`The archive entry ${JSON.stringify(path)} has a backslash or a control character in its path`);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw bad(`The archive entry ${path} has an absolute path`);
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw bad(`The archive entry ${path} leaves its folder or has an empty segment`);
  return path;
}

/** `[folder/SKILL.md, folder/x]` → `[SKILL.md, x]` when every file sits in one folder and the root has no SKILL.md. */
function withoutWrappingFolder(files: ArchiveFile[]): ArchiveFile[] {
  if (files.length === 0 || files.some((file) => file.path === 'SKILL.md')) return files;
  const folder = files[0]?.path.split('/')[0];
  if (folder === undefined || !files.every((file) => file.path.startsWith(`${folder}/`))) return files;
  return files.map((file) => ({ path: file.path.slice(folder.length + 1), data: file.data }));
}

function isZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05) && (bytes[3] === 0x04 || bytes[3] === 0x06);
}

function isGzip(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** A ustar or GNU tar header (`ustar` at offset 257), or the two zero blocks of an empty tar. */
function isTar(bytes: Buffer): boolean {
  if (bytes.length >= 262 && bytes.subarray(257, 262).toString('latin1') === 'ustar') return true;
  return bytes.length >= 1024 && bytes.subarray(0, 1024).every((byte) => byte === 0);
}

function bad(message: string): SkillArchiveError {
  return new SkillArchiveError('BAD_ARCHIVE', message);
}

function tooLarge(message: string): SkillArchiveError {
  return new SkillArchiveError('SKILL_TOO_LARGE', message);
}
