/** Messages clients recognise; free of imports so the client package loads it as it is, in any runtime. */

/** The message of the 400 answered when a bulk or upload held entries and none was valid (nothing was queued). */
export const NO_VALID_ENTRY = 'Invalid payload: no entry is valid, nothing was queued';
