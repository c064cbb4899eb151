/**
 * Reading a device's QR code: the browser's BarcodeDetector where it reads QR codes (Android, ChromeOS, macOS),
 * else the barcode-detector ponyfill, loaded on first use so it weighs nothing on other pages. The ponyfill's
 * zxing WebAssembly is one of the studio's own files (Vite's `?url`), never fetched from a CDN: the studio works
 * without internet and its CSP allows requests to this server only.
 */

/** What the studio needs of a BarcodeDetector, native or ponyfilled. */
interface QrDetector {
  detect(source: ImageBitmapSource): Promise<{ rawValue: string }[]>;
}

let detector: Promise<QrDetector> | undefined;

async function nativeDetector(): Promise<QrDetector | undefined> {
  const Native = (
    globalThis as { BarcodeDetector?: { new (options: { formats: string[] }): QrDetector; getSupportedFormats(): Promise<string[]> } }
  ).BarcodeDetector;
  if (!Native) return undefined;
  try {
    return (await Native.getSupportedFormats()).includes('qr_code') ? new Native({ formats: ['qr_code'] }) : undefined;
  } catch {
    return undefined;
  }
}

async function ponyfillDetector(): Promise<QrDetector> {
  const [{ BarcodeDetector, prepareZXingModule }, { default: wasmUrl }] = await Promise.all([
    import('barcode-detector/ponyfill'),
    import('zxing-wasm/reader/zxing_reader.wasm?url'),
  ]);
  prepareZXingModule({ overrides: { locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? wasmUrl : prefix + path) } });
  return new BarcodeDetector({ formats: ['qr_code'] });
}

/** The one detector of the page, made on first use. */
export function qrDetector(): Promise<QrDetector> {
  detector ??= nativeDetector().then((native) => native ?? ponyfillDetector());
  return detector;
}

/** The texts of the QR codes in an image (a photo, a file, a video frame); empty when it holds none. */
export async function decodeQr(source: Blob | ImageBitmapSource): Promise<string[]> {
  const image = source instanceof Blob ? await createImageBitmap(source) : source;
  const found = await (await qrDetector()).detect(image);
  if (image instanceof ImageBitmap && source instanceof Blob) image.close();
  return found.map((code) => code.rawValue);
}
