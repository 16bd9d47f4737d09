import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AbandonRequest,
  ActionsQuery,
  ActionsResponse,
  DiffResponse,
  OperatorActionResult,
  ProjectionsStatusResponse,
  RebuildRequest,
  RebuildResponse,
  RollbackRequest,
} from '@oj/contracts/operations';
import { api } from '@/lib/api-client.ts';

const path = (name: string, what: string) => `/operations/projections/${encodeURIComponent(name)}/${what}`;

export const statusQueryOptions = () =>
  queryOptions({
    queryKey: ['operations', 'status'] as const,
    queryFn: ({ signal }) => api.get<ProjectionsStatusResponse>('/operations/projections', { signal }),
    // Counts and checkpoints move with every lane batch; lag itself comes over the event stream.
    refetchInterval: 10_000,
  });

/** The operator log, 50 entries a page, newest first; each older page starts after the last one's oldest entry. */
export const actionsQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: ['operations', 'actions'] as const,
    queryFn: ({ pageParam, signal }) => {
      const query: ActionsQuery = pageParam === null ? { limit: 50 } : { limit: 50, before: pageParam };
      return api.get<ActionsResponse>('/operations/actions', { signal, query });
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last: ActionsResponse) => last.nextBefore,
  });

export const diffQueryOptions = (name: string, version: number) =>
  queryOptions({
    queryKey: ['operations', 'diff', name, version] as const,
    queryFn: ({ signal }) => api.get<DiffResponse>(path(name, 'diff'), { signal, query: { version } }),
    retry: false,
    staleTime: Infinity,
  });

export const useProjectionsStatus = () => useQuery(statusQueryOptions());
export const useOperatorActions = () => useInfiniteQuery(actionsQueryOptions());
export const useDiff = (name: string, version: number | null) => useQuery({ ...diffQueryOptions(name, version ?? 0), enabled: version !== null });

/** Every operator command refreshes the status and the actions log (the server recorded it). */
function useOperatorMutation<V, R>(run: (v: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSettled: () => {
      void client.invalidateQueries({ queryKey: ['operations', 'status'] });
      void client.invalidateQueries({ queryKey: ['operations', 'actions'] });
      void client.invalidateQueries({ queryKey: ['operations', 'diff'] });
    },
  });
}

// The request as the contract has it: JSON leaves out what is undefined, and `switch: false` is the default.
export const useRebuild = () => useOperatorMutation(({ name, ...body }: { name: string } & RebuildRequest) => api.post<RebuildResponse>(path(name, 'rebuild'), body));
export const useSwitch = () => useOperatorMutation((v: { name: string; version: number }) => api.post<OperatorActionResult>(path(v.name, 'switch'), { version: v.version }));
// Rollback and abandon name the versions the dialog showed: the server refuses (409) when they changed since.
export const useRollback = () => useOperatorMutation(({ name, ...body }: { name: string } & RollbackRequest) => api.post<OperatorActionResult>(path(name, 'rollback'), body));
export const useRetire = () => useOperatorMutation((v: { name: string; version: number }) => api.post<OperatorActionResult>(path(v.name, 'retire'), { version: v.version }));
export const useAbandon = () => useOperatorMutation(({ name, ...body }: { name: string } & AbandonRequest) => api.post<OperatorActionResult>(path(name, 'abandon'), body));

/** Asks for the board's cookie (Admin), then the board opens in a new tab. */
export const openQueuesSession = () => api.post<{ url: string }>('/operations/queues-session');
