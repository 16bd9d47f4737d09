import { keepPreviousData, queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import {
  EXPORT_DIGEST_HEADER,
  type AccessLogResponse,
  type AsOfResponse,
  type AuditOverview,
  type AuditUser,
  type EventDiffResponse,
  type ExportFormat,
  type TimelineResponse,
  type VerifyResponse,
} from '@oj/contracts/audit';
import { API_BASE, ApiError, api } from '@/lib/api-client.ts';
import { sessionStore } from '@/features/auth/session-store.ts';
import { saveFile } from '@/lib/save-file.ts';
import { timelinePageOf, timelineReadOf, type TimelineAddress } from '../utils/timeline-address.ts';

/**
 * The audit replay's calls. Every read of a user's history carries the reason support gave when opening
 * it; the server records each one in the access log, so nothing here is prefetched or retried behind the
 * user's back (a retry would be a second recorded access).
 */
const base = (uid: string) => `/audit/users/${encodeURIComponent(uid)}`;

export const findUsers = (q: string, signal?: AbortSignal) => api.get<{ users: AuditUser[] }>('/audit/users', { query: { q }, signal });

export function useFindUsers(q: string | null) {
  return useQuery({ queryKey: ['audit', 'find', q] as const, queryFn: ({ signal }) => findUsers(q ?? '', signal), enabled: Boolean(q), retry: false });
}

export const overviewQuery = (uid: string, reason: string) =>
  queryOptions({
    queryKey: ['audit', uid, reason, 'overview'] as const,
    queryFn: ({ signal }) => api.get<AuditOverview>(base(uid), { query: { reason }, signal }),
    retry: false,
    staleTime: Infinity,
  });

/**
 * The page of the timeline an address names, in the timeline's order with its number and pager (see
 * timeline-address.ts). Turned round in the fetch, not in `select`: the page kept on screen while the next
 * loads (`keepPreviousData`) stays the one it was read for.
 */
export const timelinePageQuery = (uid: string, reason: string, address: TimelineAddress, size: number) =>
  queryOptions({
    queryKey: ['audit', uid, reason, 'timeline', address, size] as const,
    queryFn: async ({ signal }) =>
      timelinePageOf(address, await api.get<TimelineResponse>(`${base(uid)}/timeline`, { query: { reason, ...timelineReadOf(address, size) }, signal }), size),
    retry: false,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });

export interface AsOfTarget {
  event?: string;
  date?: string;
  formulas?: number;
  trade?: string;
}

export const asOfQuery = (uid: string, reason: string, t: AsOfTarget | null) =>
  queryOptions({
    queryKey: ['audit', uid, reason, 'as-of', t] as const,
    queryFn: ({ signal }) => api.get<AsOfResponse>(`${base(uid)}/as-of`, { query: { reason, list_limit: 25, ...t }, signal }),
    enabled: t !== null,
    retry: false,
    staleTime: Infinity,
  });

export const diffQuery = (uid: string, reason: string, position: string | null) =>
  queryOptions({
    queryKey: ['audit', uid, reason, 'diff', position] as const,
    queryFn: ({ signal }) => api.get<EventDiffResponse>(`${base(uid)}/events/${position}/diff`, { query: { reason }, signal }),
    enabled: position !== null,
    retry: false,
    staleTime: Infinity,
  });

/** Verify; `full`: replayed from the user's first event rather than from the last stored replay state. */
export function useVerify(uid: string, reason: string) {
  return useMutation({
    mutationFn: ({ full }: { full: boolean }) => api.get<VerifyResponse>(`${base(uid)}/verify`, { query: { reason, ...(full ? { full: 'true' } : {}) }, timeoutMs: 120_000 }),
  });
}

export interface ExportResult {
  filename: string;
  digest: string;
  bytes: number;
}

/**
 * Downloads an export. Not through `api`: the body is a file (JSON Lines or CSV), and the SHA-256 comes
 * in a response header that the screen shows next to the file name.
 */
export async function downloadExport(uid: string, reason: string, format: ExportFormat): Promise<ExportResult> {
  const token = sessionStore.getState().accessToken;
  const res = await fetch(`${API_BASE}${base(uid)}/export?${new URLSearchParams({ reason, format })}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    credentials: 'include',
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    throw new ApiError(res.status, body?.message ?? `Export failed (${res.status})`);
  }
  const blob = await res.blob();
  const filename = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `export.${format}`;
  const digest = res.headers.get(EXPORT_DIGEST_HEADER) ?? '';
  saveFile(URL.createObjectURL(blob), filename);
  return { filename, digest, bytes: blob.size };
}

export function useExport(uid: string, reason: string) {
  return useMutation({ mutationFn: (format: ExportFormat) => downloadExport(uid, reason, format) });
}

export function useAccessLog(cursor: string | null, user: string | null) {
  return useQuery({
    queryKey: ['audit', 'access-log', cursor, user] as const,
    queryFn: ({ signal }) => api.get<AccessLogResponse>('/audit/access-log', { query: { cursor, user, limit: 50 }, signal }),
    retry: false,
    placeholderData: keepPreviousData,
  });
}
