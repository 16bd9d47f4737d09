import { useQuery } from '@tanstack/react-query';
import type { JournalAccessResponse } from '@oj/contracts/audit';
import { api } from '@/lib/api-client.ts';

/** GET /users/journal-access: who of the support staff opened my journal, when and why (newest first). */
export function getJournalAccess(signal?: AbortSignal): Promise<JournalAccessResponse> {
  return api.get<JournalAccessResponse>('/users/journal-access', { signal });
}

export function useJournalAccess() {
  return useQuery({ queryKey: ['users', 'journal-access'] as const, queryFn: ({ signal }) => getJournalAccess(signal) });
}
