import { randomBytes } from 'node:crypto';

// Marks a raw value in the serialized response. Random per process and made of characters JSON never escapes, so
// no string a client or device sends can pass for one (it would have to guess 96 random bits).
const markerTag = `raw-json-${randomBytes(12).toString('base64url')}:`;
// How a marker starts in the serialized body: as a JSON string.
const serializedMarkerStart = `"${markerTag}`;

/** A value whose JSON text is already known; serializes as a marker string that `RawJsonSplicer.splice` replaces. */
class RawJsonValue {
  constructor(private readonly index: number) {}

  toJSON(): string {
    return `${markerTag}${this.index}`;
  }
}

/**
 * Lets one GraphQL-over-HTTP response carry JSON texts as they are, without parsing them into objects for the
 * executor and serializing them again: stored device messages are JSON already, and for a page of 100 of them
 * that round trip cost more than the rest of the request. `wrap` gives the executor a stand-in for each text; the
 * response body, once serialized, goes through `splice`, which puts the texts in place of the stand-ins.
 *
 * Only for a transport that serializes the result in one piece and hands it to `splice` (the HTTP route); the
 * streaming transports (SSE, WebSocket) get parsed values instead.
 */
export class RawJsonSplicer {
  private readonly texts: string[] = [];

  wrap(text: string): unknown {
    return new RawJsonValue(this.texts.push(text) - 1);
  }

  get isEmpty(): boolean {
    return this.texts.length === 0;
  }

  /** The serialized response with each stand-in replaced by its JSON text. */
  splice(body: string): string {
    const parts = body.split(serializedMarkerStart);
    let spliced = parts[0]!;
    for (let k = 1; k < parts.length; k++) {
      const part = parts[k]!;
      const end = part.indexOf('"');
      spliced += this.texts[Number(part.slice(0, end))]! + part.slice(end + 1);
    }
    return spliced;
  }
}
