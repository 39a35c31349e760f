// The bearer token every HTTP request must carry, compared so the time taken tells nothing about it.
import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * A check of `Authorization: Bearer TOKEN` against the expected token. Both sides are hashed first, so
 * the comparison always runs over 32 bytes: timingSafeEqual needs equal lengths, and comparing lengths
 * directly would tell a prober the token's length.
 */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => BearerVerdict {
  const expected = digest(token)
  return (authorization) => {
    if (authorization === undefined) return 'missing'
    // RFC 7235: the scheme is case-insensitive; RFC 6750: one space, then the token.
    const match = /^bearer +(\S+)\s*$/i.exec(authorization)
    if (match === null) return 'missing'
    return timingSafeEqual(digest(match[1]!), expected) ? 'valid' : 'invalid'
  }
}

/** What a request's Authorization header holds: the token, none (or no bearer token), or another token. */
export type BearerVerdict = 'valid' | 'missing' | 'invalid'

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}
