import { useCallback, useEffect, useRef, useState } from 'react';
import { takeStreamEvents, type LagSample, type LaneError, type OperationsLive, type RebuildState } from '@oj/contracts/operations';
import { API_BASE, refreshAccessToken } from '@/lib/api-client.ts';
import { sessionStore } from '@/features/auth/session-store.ts';

export interface OperationsStream {
  live: OperationsLive | null;
  connected: boolean;
  error: string | null;
}

/** Shows a rebuild the page just started before the stream reports it (never over a newer report). */
export type UpsertRebuild = (rebuild: RebuildState) => void;

const HISTORY_MS = 15 * 60 * 1000;

/**
 * Follows `GET /operations/stream` (Server-Sent Events). EventSource cannot send the bearer token, so
 * the stream is read with fetch; it reconnects after a drop (each connection starts with a full
 * snapshot, so a reload or a restart of the gateway loses nothing the server still knows).
 */
export function useOperationsStream(onRebuilds?: (rebuilds: RebuildState[]) => void): OperationsStream & { upsertRebuild: UpsertRebuild } {
  const [state, setState] = useState<OperationsStream>({ live: null, connected: false, error: null });
  const callback = useRef(onRebuilds);
  callback.current = onRebuilds;

  useEffect(() => {
    const abort = new AbortController();
    let retryMs = 1000;
    const apply = (event: string, data: unknown) => {
      if (event === 'snapshot') {
        const live = data as OperationsLive;
        setState({ live, connected: true, error: null });
        callback.current?.(live.rebuilds);
        retryMs = 1000;
      } else if (event === 'rebuilds') {
        const rebuilds = data as RebuildState[];
        setState((s) => (s.live ? { ...s, live: { ...s.live, rebuilds } } : s));
        callback.current?.(rebuilds);
      } else if (event === 'lag') {
        const { sample, laneErrors } = data as { sample: LagSample; laneErrors: LaneError[] };
        setState((s) => {
          if (!s.live) return s;
          const cutoff = Date.parse(sample.at) - HISTORY_MS;
          const lagHistory = [...s.live.lagHistory.filter((x) => Date.parse(x.at) >= cutoff), sample];
          return { ...s, live: { ...s.live, lagHistory, laneErrors } };
        });
      }
    };
    const connect = async (): Promise<void> => {
      let token = sessionStore.getState().accessToken;
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await fetch(`${API_BASE}/operations/stream`, {
          headers: { Accept: 'text/event-stream', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
          credentials: 'include',
          signal: abort.signal,
        });
        if (res.status === 401 && attempt === 0) {
          token = await refreshAccessToken(token);
          if (!token) throw new Error('Your session has ended: sign in again.');
          continue;
        }
        if (!res.ok || !res.body) {
          const body = (await res.json().catch(() => null)) as { message?: string } | null;
          throw new Error(body?.message ?? `The live updates could not start (${res.status}).`);
        }
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const { events, rest } = takeStreamEvents(buffer + value);
          buffer = rest;
          for (const e of events) apply(e.event, e.data);
        }
      }
    };
    void (async () => {
      while (!abort.signal.aborted) {
        try {
          await connect();
          setState((s) => ({ ...s, connected: false }));
        } catch (err) {
          if (abort.signal.aborted) return;
          setState((s) => ({ ...s, connected: false, error: err instanceof Error ? err.message : 'Live updates lost.' }));
        }
        await new Promise((r) => setTimeout(r, retryMs));
        retryMs = Math.min(retryMs * 2, 15_000);
      }
    })();
    return () => abort.abort();
  }, []);

  const upsertRebuild = useCallback<UpsertRebuild>((rebuild) => {
    setState((s) => {
      if (!s.live) return s;
      const current = s.live.rebuilds.find((r) => r.id === rebuild.id);
      if (current && current.updatedAt >= rebuild.updatedAt) return s;
      return { ...s, live: { ...s.live, rebuilds: [rebuild, ...s.live.rebuilds.filter((r) => r.id !== rebuild.id)] } };
    });
  }, []);
  return { ...state, upsertRebuild };
}
