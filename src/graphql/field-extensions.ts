/**
 * A subscription field whose events are the same object for every subscriber (the live feed's
 * update of a resort, the sync status) and whose fields read nothing of one request: its selection
 * is executed once per event for all subscribers of the same document (operation/shared-events.ts).
 * Set on the field as `extensions: { [SHARED_EVENTS]: true }`.
 */
export const SHARED_EVENTS = 'sharedEvents';

/**
 * A root field only keys with this scope may run (`extensions: { [NEEDS_SCOPE]: 'admin' }`): its
 * resolver refuses others (FORBIDDEN), and what lists operations for a key (the MCP tools) leaves
 * out those it could not run.
 */
export const NEEDS_SCOPE = 'needsScope';
