import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { ApiError } from '@/lib/api-client.ts';
import { ToastProvider } from '@/components/ui/toast.tsx';
import { installSession, sessionStore } from '@/features/auth/session-store.ts';
import { subscribeBusinessDay } from '@/lib/business-day.ts';
import { refreshOnOtherTabsWrites } from '@/features/trades/api/other-tabs.ts';

installSession();

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        // A 4xx will not change by asking again; network errors and 5xx get two more tries.
        retry: (failureCount, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failureCount < 2,
      },
      mutations: { retry: false },
    },
  });
}

/**
 * When the session's plan status or role changes (a token refreshed after a plan lapsed or was renewed),
 * every answer cached under the old one is out of date: the lists' 403s, the Subscription page's plan
 * (QA: it kept showing the trial as active for up to 30 s beside the sidebar's Renew Now). All queries
 * are refetched; the first state is only remembered.
 */
export function refetchOnAccessChange(queryClient: QueryClient): () => void {
  const accessOf = () => {
    const { subsStatus, privilege, user } = sessionStore.getState();
    return { user: user?.user_uid ?? null, access: `${subsStatus ?? ''}|${privilege}` };
  };
  let last = accessOf();
  const unsubscribe = sessionStore.subscribe(() => {
    const next = accessOf();
    // The same signed-in user with another status or role; a sign-in or a sign-out is not this (a
    // sign-out leaves the page, and refetching without a token would only be refused).
    const changed = next.user !== null && next.user === last.user && next.access !== last.access;
    last = next;
    if (changed) void queryClient.invalidateQueries();
  });
  return () => void unsubscribe();
}

/**
 * At New York midnight every figure of "today" moves: the expiring bell and list, the dashboard's Today and
 * week, the pulse's 1D, the calendar's today. All queries are refetched then (the active ones at once), so
 * a console left open overnight shows the new day without a reload.
 */
export function refetchOnNewBusinessDay(queryClient: QueryClient): () => void {
  return subscribeBusinessDay(() => void queryClient.invalidateQueries());
}

export function AppProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  useEffect(() => refetchOnAccessChange(queryClient), [queryClient]);
  useEffect(() => refetchOnNewBusinessDay(queryClient), [queryClient]);
  useEffect(() => refreshOnOtherTabsWrites(queryClient), [queryClient]);
  return (
    <QueryClientProvider client={queryClient}>
      <ToastProvider>{children}</ToastProvider>
    </QueryClientProvider>
  );
}
