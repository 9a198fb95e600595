/** The largest introspection answer read from the provider; real ones are a few KiB. */
export const MAX_ANSWER_BYTES = 64 * 1024;
