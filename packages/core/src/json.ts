/** A JSON value: what may cross the wire as presentation metadata. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
