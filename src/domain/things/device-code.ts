/**
 * How an installer names a device (seed 000): the TUID is the IMC followed by the PSN, both read from the device's
 * QR code. This file is the one statement of that rule; the studio's installer mode imports it, so it stays free of
 * Node imports (Vite bundles it for the browser).
 */

/** A device's IMC and PSN, as printed on it or read from its QR code. */
export interface DeviceCode {
  imc: string;
  psn: string;
}

/** Seed 000's rule: IMC first, then PSN, concatenated (surrounding blanks, as typed or scanned, are not part of either). */
export function tuidFromImcPsn(imc: string, psn: string): string {
  return `${imc.trim()}${psn.trim()}`;
}

/**
 * The IMC and PSN a device's QR code holds, or undefined when it holds neither form. Neither seed 000 nor the SPEC fixes
 * the payload, so two forms are read (docs/studio.md, "Installer mode"):
 * - parameters `imc` and `psn` in a query string, alone (`imc=TD01&psn=000123`) or in a URL (`https://x/i?imc=TD01&psn=000123`);
 * - a JSON object with `imc` and `psn` strings (`{"imc":"TD01","psn":"000123"}`).
 * Parameter names are read ignoring case; both values must be non-empty.
 */
export function parseDeviceCode(payload: string): DeviceCode | undefined {
  const text = payload.trim();
  const found = text.startsWith('{') ? fromJson(text) : fromParameters(text.includes('?') ? text.slice(text.indexOf('?') + 1) : text);
  if (!found) return undefined;
  const imc = found.imc.trim();
  const psn = found.psn.trim();
  return imc && psn ? { imc, psn } : undefined;
}

function fromJson(text: string): DeviceCode | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const entries = Object.entries(value).map(([key, item]) => [key.toLowerCase(), item] as const);
    const imc = entries.find(([key]) => key === 'imc')?.[1];
    const psn = entries.find(([key]) => key === 'psn')?.[1];
    return typeof imc === 'string' && typeof psn === 'string' ? { imc, psn } : undefined;
  } catch {
    return undefined;
  }
}

function fromParameters(text: string): DeviceCode | undefined {
  const parameters = [...new URLSearchParams(text.split('#')[0])].map(([key, value]) => [key.toLowerCase(), value] as const);
  const imc = parameters.find(([key]) => key === 'imc')?.[1];
  const psn = parameters.find(([key]) => key === 'psn')?.[1];
  return imc !== undefined && psn !== undefined ? { imc, psn } : undefined;
}
