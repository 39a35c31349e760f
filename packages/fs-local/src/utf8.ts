// Where to cut a run of UTF-8 bytes so the kept head ends on a character boundary.

/**
 * How many bytes of `bytes` (longer than `maxBytes`) to keep so the head holds at most `maxBytes` and
 * does not end inside a character: `maxBytes`, or up to three less when a multi-byte character
 * straddles the cut. Bytes that are not valid UTF-8 are cut at `maxBytes` or where a broken lead says.
 */
export function utf8CutIndex(bytes: Uint8Array, maxBytes: number): number {
  // A UTF-8 character is at most 4 bytes, so its lead byte is at most 3 bytes before the cut.
  const floor = Math.max(0, maxBytes - 3)
  let lead = maxBytes
  while (lead > floor && isContinuation(bytes[lead]!)) lead -= 1
  return lead + sequenceLength(bytes[lead]!) > maxBytes ? lead : maxBytes
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80
}

/** The byte length a lead byte announces; a continuation or ASCII byte stands alone. */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0) return 4
  if (lead >= 0xe0) return 3
  return lead >= 0xc0 ? 2 : 1
}
