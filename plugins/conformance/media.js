// The smallest real media the scenarios ask for: the suite checks that image
// and audio content carry data and a MIME type, so each is a valid file that
// any decoder would accept, not placeholder bytes.
import { Buffer } from 'node:buffer';

/** A 1x1 red pixel, 8-bit RGB PNG. */
export const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/**
 * A WAV file of `samples` silent samples: 8 kHz, mono, 16-bit PCM, base64.
 * Built from its header fields so the byte layout is readable here.
 * @param {number} samples
 */
function silentWav(samples) {
  const sampleRate = 8000;
  const bytesPerSample = 2;
  const dataSize = samples * bytesPerSample;
  const wav = Buffer.alloc(44 + dataSize);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + dataSize, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * bytesPerSample, 28); // byte rate
  wav.writeUInt16LE(bytesPerSample, 32); // block align
  wav.writeUInt16LE(8 * bytesPerSample, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataSize, 40);
  return wav.toString('base64');
}

/** 10 ms of silence. */
export const SILENT_WAV = silentWav(80);
