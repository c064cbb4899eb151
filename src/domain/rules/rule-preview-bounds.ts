/** The bounds of a rule's preview (SPEC section 13), read by the preview, its store reads and its request cost. */

/** How many things the preview shows the last value of (the most recently heard in the scope). */
export const previewSampleLimit = 10;

/**
 * How far back the preview looks for a thing's last message of the rule's id: the thing's newest rows only, a
 * range read of the primary key, so a thing that never sends the id costs this many rows at most, not its history.
 */
export const previewScanRows = 1000;
