/** A real 2×2 PNG (one blue colour), base64. */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR42mOQy78JRAwQCgAkSgWZQLmMMwAAAABJRU5ErkJggg==';

/**
 * A real WAV file: PCM, mono, 8 kHz, 8 bits, `durationMs` of silence (value 128 is the 8-bit
 * midpoint), with the canonical 44-byte RIFF header.
 */
export function silentWav(durationMs = 50): Buffer {
  const sampleRate = 8_000;
  const samples = Math.round((sampleRate * durationMs) / 1_000);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // channels
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate, 28); // byte rate = rate × channels × bytes per sample
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 128)]);
}

export const TINY_WAV_BASE64 = silentWav().toString('base64');
