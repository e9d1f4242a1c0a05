import { describe, expect, it } from 'vitest';
import { silentWav, TINY_PNG_BASE64 } from './media.fixtures';

describe('media fixtures', () => {
  describe('silentWav', () => {
    it('builds a RIFF/WAVE file whose sizes add up', () => {
      const wav = silentWav(50);
      expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
      expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
      expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
      expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
      expect(wav.readUInt32LE(40)).toBe(400);
    });
  });

  describe('TINY_PNG_BASE64', () => {
    it('is a PNG with a 2×2 IHDR', () => {
      const png = Buffer.from(TINY_PNG_BASE64, 'base64');
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.toString('ascii', 12, 16)).toBe('IHDR');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([2, 2]);
    });
  });
});
