// The size bound of one frame of the framed channel (process and sandbox modes), shared by the
// host's reader (src/sandbox/frames.ts) and the child's writer (worker/link-process.mjs).

/** Bytes a frame may carry beyond `maxMessageBytes` (envelopes, batch wrappers, V8's tags). */
export const FRAME_SLACK_BYTES = 1024 * 1024;

/**
 * The largest frame the host accepts. Why 1.25x: `maxMessageBytes` is checked on an estimate
 * (worker/size.mjs) that V8's encoding can exceed by a little (a double is 9 bytes, not 8).
 * @param {number} maxMessageBytes
 */
export function maxFrameBytes(maxMessageBytes) {
  return Math.ceil(maxMessageBytes * 1.25) + FRAME_SLACK_BYTES;
}
