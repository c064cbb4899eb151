/** A TUID (SPEC section 3): what may appear in a path and, as a topic segment, in MQTT topics. */
export const tuidPattern = /^[A-Za-z0-9._:-]{1,64}$/;

export function isValidTuid(value: string): boolean {
  return tuidPattern.test(value);
}
