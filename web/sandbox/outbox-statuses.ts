/**
 * The states of an item in the provider's outbox, in the order the back
 * office's filter offers them: the provider's own list
 * (src/dispatch/outbox.ts ITEM_STATUSES), which a test keeps this equal to.
 * The page is browser code and imports no server code, hence the copy.
 */
export const OUTBOX_STATUSES: readonly string[] = ['pending', 'sent', 'refused', 'skipped', 'parked', 'resolved'];
