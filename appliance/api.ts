/**
 * What the server reaches of the signing box: the one module of appliance/ that the roost plugin
 * imports (test/core/kernel/plugin-boundaries.test.ts enforces it), so the box logic can change
 * inside without the plugin depending on its files. The kernel imports nothing from appliance/.
 *
 * @see docs/appliance.md
 */
/** The re-arm ticket's wire rules the server checks and publishes (lifetime, clock tolerance, box id and nonce shapes). */
export { BOX_ID_PATTERN, CLOCK_TOLERANCE_SECONDS, NONCE_PATTERN, TICKET_LIFETIME_SECONDS } from './ticket-format.ts';
/** Signs a re-arm ticket for a box with the organization's re-arm key. */
export { issueTicket } from './ticket-issuer.ts';
/** The re-arm public key as the document an owner pins in the box. */
export { rearmPublicKeyDocument, type RearmPublicKeyDocument } from './pin.ts';
/** `aerie box …`: the Node simulator of the box. */
export { registerBoxCommands } from './simulator/commands.ts';
