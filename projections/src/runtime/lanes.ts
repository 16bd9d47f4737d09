import { START, comparePositions, positionFromString, positionToString, type LogPosition, type ProjectedEvent } from '@oj/infra/eventstore/port';

/**
 * Stable lane of a user: FNV-1a (32 bit) of the user id, modulo the lane count. Stable across
 * processes and releases, which is what keeps one user's events on one ordered lane.
 */
export function laneOf(userId: string, lanes: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    hash ^= userId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % lanes;
}

export const maxPosition = (a: LogPosition, b: LogPosition): LogPosition => (comparePositions(a, b) >= 0 ? a : b);
export const minPosition = (a: LogPosition, b: LogPosition): LogPosition => (comparePositions(a, b) <= 0 ? a : b);

/** Row columns (numeric cast to text in SQL) to a position, without going through JS numbers. */
export function rowPosition(row: { commit: string | number | bigint; prepare: string | number | bigint }): LogPosition {
  return { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
}

/** Positions as SQL parameters: numeric columns accept the decimal text of a bigint exactly. */
export const posParams = (p: LogPosition) => ({ commit: p.commit.toString(), prepare: p.prepare.toString() });

export const matchesPrefixes = (streamId: string, prefixes: readonly string[]) => prefixes.some((p) => streamId.startsWith(p));

/** Events as they travel in a BullMQ job (JSON: positions as text). */
export interface WireEvent extends Omit<ProjectedEvent, 'position'> {
  position: string;
}
export const toWire = (e: ProjectedEvent): WireEvent => ({ ...e, position: positionToString(e.position) });
export const fromWire = (e: WireEvent): ProjectedEvent => ({ ...e, position: positionFromString(e.position) });

export { START };
