/**
 * Shapes of the catalog's data. Everything here is plain JSON (no functions, no classes) so the
 * definitions can be served as-is by `GET /catalog` and imported by a client without the server.
 */

/** Field types as seed 002 names them, plus the two container types it uses. */
export type FieldType = 'Number' | 'String' | 'Buffer' | 'Array' | 'Object';

/** Who sends a message: the device (`uplink`), the cloud (`downlink`), or each side one variant. */
export type Direction = 'uplink' | 'downlink' | 'both';

export type Profile = 'common' | 'environment';

/** One entry of a value set, e.g. `{ value: 255, meaning: 'beacon off' }`. */
export interface AllowedValue {
  readonly value: number | string;
  readonly meaning: string;
}

/** One bit of a bit-flag field (1220 `nodeRole`): several may be set at once. */
export interface BitFlag {
  readonly bit: number;
  readonly name: string;
  readonly meaning: string;
}

/**
 * Extra shape checks on strings. `url`: an absolute http(s) URL; `sha256`: 64 hex digits.
 * Named formats rather than regular expressions so the rule reads the same in docs and code.
 */
export type StringFormat = 'url' | 'sha256';

/** Rules shared by fields and array items. Absent means "no rule". */
export interface ValueRules {
  readonly type: FieldType;
  /** The value must be one of these (seed tables). */
  readonly values?: readonly AllowedValue[];
  /** Inclusive bounds. */
  readonly min?: number;
  readonly max?: number;
  /** Must be a whole number (ids, enums, byte values, counts). */
  readonly integer?: boolean;
  /** `null` is accepted as well as the type (1201/1203 responses: "tuid String or null"). */
  readonly nullable?: boolean;
  readonly format?: StringFormat;
  /** For `String`: fewest characters accepted. */
  readonly minLength?: number;
  /** For `Array`: the rules of each element. */
  readonly items?: ItemDefinition;
  /** For `Array`: fewest elements accepted. */
  readonly minItems?: number;
  /** For `Object`: its fields. */
  readonly fields?: readonly FieldDefinition[];
}

export type ItemDefinition = ValueRules;

export interface FieldDefinition extends ValueRules {
  readonly name: string;
  readonly required: boolean;
  readonly unit?: string;
  readonly description?: string;
  /** Device default when the field is not sent (12210-12212). */
  readonly default?: number | string;
  /** Bit meanings when the number is a set of flags. */
  readonly flags?: readonly BitFlag[];
  /** A realistic value used by `exampleMessage` (and so by the simulator and the docs). */
  readonly example?: number | string | readonly unknown[];
}

/** A request or response form of a message id that has both (1201, 1203, 1402). */
export interface VariantDefinition {
  readonly name: 'request' | 'response';
  readonly direction: 'uplink' | 'downlink';
  readonly events: readonly number[];
  readonly fields: readonly FieldDefinition[];
}

export interface MessageDefinition {
  readonly tsmId: number;
  readonly name: string;
  readonly profile: Profile;
  readonly direction: Direction;
  /** `tsmEv` values seen with this id (seed part 6); empty when the seed does not show them. */
  readonly events: readonly number[];
  /** Accepted by `POST /things/{tuid}/commands`. */
  readonly commandEndpoint: boolean;
  /** Fields of the message. Empty when the id has `variants`: each variant lists its own. */
  readonly fields: readonly FieldDefinition[];
  readonly variants?: readonly VariantDefinition[];
  /** The payload is not defined (13200): any extra field is accepted. */
  readonly openPayload?: boolean;
  readonly notes?: readonly string[];
}

/** One row of the `tsmEv` table (seed part 6). */
export interface EventDefinition {
  readonly id: number;
  readonly use: string;
  /** Message ids that carry this event, as the message definitions list them. */
  readonly tsmIds: readonly number[];
}

/** A problem found by validation; `field` is a path relative to the message, '' for the message itself. */
export interface Problem {
  readonly field: string;
  readonly message: string;
}
