/** Event ids are UUIDs; both stores keep them in the canonical lower-case, hyphenated form. */
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export function assertEventIds(streamId: string, ids: string[]): void {
  if (ids.length === 0) throw new Error(`Append to ${streamId}: no events`);
  for (const id of ids) {
    if (!UUID.test(id)) throw new Error(`Append to ${streamId}: event id ${id} is not a UUID`);
  }
  if (new Set(ids.map(canonicalUuid)).size !== ids.length) throw new Error(`Append to ${streamId}: the same event id twice in one append`);
}

export function canonicalUuid(id: string): string {
  const hex = id.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
