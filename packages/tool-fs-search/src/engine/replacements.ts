// Where a lossy UTF-8 decode puts U+FFFD in for bytes, so it can be told from a U+FFFD the bytes hold.

/**
 * The offsets, in the UTF-8 of `bytes[start, end)` decoded lossily (`Buffer#toString`), at which a
 * U+FFFD stands for bytes that are not valid UTF-8. The decoder replaces each maximal subpart of an
 * ill-formed sequence with one U+FFFD (the WHATWG Encoding Standard's UTF-8 decoder, which V8
 * follows): a byte that cannot start a character alone, or a valid start and the continuation bytes
 * that fit it, up to the first that does not. A valid character, U+FFFD included, keeps its length.
 * Only called for bytes known not to be valid UTF-8.
 */
export function replacementOffsets(bytes: Uint8Array, start: number, end: number): number[] {
  const offsets: number[] = []
  let out = 0
  let at = start
  while (at < end) {
    const lead = bytes[at]!
    if (lead < 0x80) {
      at += 1
      out += 1
      continue
    }
    // How many continuation bytes the lead needs, and the range the first of them must lie in.
    let need = 0
    let low = 0x80
    let high = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) need = 1
    else if (lead >= 0xe0 && lead <= 0xef) {
      need = 2
      if (lead === 0xe0) low = 0xa0
      if (lead === 0xed) high = 0x9f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      need = 3
      if (lead === 0xf0) low = 0x90
      if (lead === 0xf4) high = 0x8f
    }
    let next = at + 1
    let have = 0
    while (have < need && next < end && bytes[next]! >= low && bytes[next]! <= high) {
      next += 1
      have += 1
      low = 0x80
      high = 0xbf
    }
    if (need > 0 && have === need) {
      out += next - at
    } else {
      offsets.push(out)
      out += 3
    }
    at = next
  }
  return offsets
}
