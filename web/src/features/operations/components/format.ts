import type { FigureDelta, ProjectionsStatusResponse, RebuildState } from '@oj/contracts/operations';

export const int = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * A lane's state in a word or two: its lag, or, with nothing behind, whether it is caught up. A lane nobody
 * works (an error of 0 attempts) or one stuck is neither (QA 75: green "caught up" above the red "No
 * projector works this lane"). `behind` null: the lag is not measured (version skew).
 */
export function laneState(lane: { behind: number | null; capped: boolean; seconds: number; errorAttempts: number | null }): { text: string; ok: boolean } {
  if (lane.behind === null) return { text: 'lag unknown', ok: false };
  if (lane.behind > 0 || lane.capped) return { text: `${int(lane.behind)}${lane.capped ? '+' : ''} behind · ${lane.seconds.toFixed(1)}s`, ok: false };
  if (lane.errorAttempts !== null) return { text: lane.errorAttempts > 0 ? 'stuck' : 'not worked', ok: false };
  return { text: 'caught up', ok: true };
}

export function duration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  if (seconds < 1) return '<1s';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m ${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

export const timeAgo = (iso: string | null, now = Date.now()) => {
  if (!iso) return '—';
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString('en-US', { month: 'short', day: 'numeric' });
};

/**
 * When an operator action happened, in UTC and saying so, as the servers' logs and the audit screens write
 * time (QA: the log showed the browser's local time with no zone beside them): 'Dec 5, 10:51:49 UTC'.
 */
export const dateTime = (iso: string) =>
  `${new Date(iso).toLocaleString('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })} UTC`;

const SHORT = /^[a-z]{1,4}$/;
/** Trade list items use short names (`ror`, `aroc`, `npc`): those read better upper-cased. */
export const figureLabel = (column: string) => (SHORT.test(column) ? column.toUpperCase() : column.replace(/_/g, ' '));

const signed = (n: number) => `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n).toLocaleString('en-US', { maximumFractionDigits: 4 })}`;

/** "ROR changed for 312 trades of 41 users, largest +3.2". */
export function figureSentence(f: FigureDelta): string {
  const rows = f.table === 'trades' ? `${int(f.rowsChanged)} trade${f.rowsChanged === 1 ? '' : 's'}` : `${int(f.rowsChanged)} row${f.rowsChanged === 1 ? '' : 's'} of ${f.table}`;
  const users = f.users === null ? '' : ` of ${int(f.users)} user${f.users === 1 ? '' : 's'}`;
  const largest = f.largestDelta === null ? '' : `, largest ${signed(f.largestDelta)}`;
  return `${figureLabel(f.column)} changed for ${rows}${users}${largest}`;
}

export const phaseLabel: Record<RebuildState['phase'], string> = {
  queued: 'Queued',
  building: 'Building',
  finishing: 'Finishing',
  switching: 'Switching',
  done: 'Done',
  failed: 'Failed',
};

export const short = (v: unknown): string => {
  if (v === null || v === undefined) return '∅';
  if (typeof v === 'number') return v.toLocaleString('en-US', { maximumFractionDigits: 6 });
  if (typeof v === 'string') return v.length > 14 ? `${v.slice(0, 8)}…` : v;
  return JSON.stringify(v).slice(0, 40);
};

/** Log positions are zero-padded `<commit>-<prepare>` strings: shown without the padding. */
export const position = (p: string) => (/^\d+-\d+$/.test(p) ? p.split('-').map((x) => x.replace(/^0+(?=\d)/, '')).join(':') : p);

type RebuildRecord = ProjectionsStatusResponse['projections'][number]['rebuilds'][number];

/**
 * What the card says of the building version while no rebuild of it runs, by its record: stopped before
 * it was built (`builtAt` unset: resume it; `short` when it stopped before the log's end), or built and
 * waiting for a compare and a switch (or an abandon). Switched builds are not building.
 */
export function idleBuild(buildingVersion: number | undefined, rebuilds: RebuildRecord[]): { kind: 'stopped'; record: RebuildRecord; short: boolean } | { kind: 'built'; record: RebuildRecord } | null {
  const record = buildingVersion === undefined ? undefined : rebuilds.find((r) => r.version === buildingVersion && !r.finishedAt);
  if (!record) return null;
  if (record.builtAt) return { kind: 'built', record };
  return { kind: 'stopped', record, short: record.eventsTotal !== null && record.eventsDone < record.eventsTotal };
}
