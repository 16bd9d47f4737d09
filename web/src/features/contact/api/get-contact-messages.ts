import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ContactMessage, ContactMessageSummary, ProfileChange } from '@oj/contracts/users';
import { api } from '@/lib/api-client.ts';

export interface ContactMessagePage {
  items: ContactMessageSummary[];
  page: number;
  pages: number;
  size: number;
  total: number;
}

export const contactMessagesKey = ['admin', 'contact-messages'] as const;

/** GET /admin/messages (Admin and Support): newest first. */
export const contactMessagesQueryOptions = (page: number, enabled = true) =>
  queryOptions({
    enabled,
    queryKey: [...contactMessagesKey, 'page', page],
    queryFn: ({ signal }) => api.get<ContactMessagePage>('/admin/messages', { signal, query: { page, size: 20 } }),
    placeholderData: keepPreviousData,
  });

export const useContactMessages = (page: number, enabled: boolean) => useQuery(contactMessagesQueryOptions(page, enabled));

export function useContactMessage(id: string | null) {
  return useQuery({
    queryKey: [...contactMessagesKey, 'one', id],
    queryFn: ({ signal }) => api.get<ContactMessage>(`/admin/messages/${encodeURIComponent(id ?? '')}`, { signal }),
    enabled: id !== null,
  });
}

/** GET /admin/users/{uid}/profile-changes: the sender's profile history, next to the message. */
export function useProfileChanges(userUid: string | null) {
  return useQuery({
    queryKey: ['admin', 'profile-changes', userUid],
    queryFn: ({ signal }) => api.get<ProfileChange[]>(`/admin/users/${encodeURIComponent(userUid ?? '')}/profile-changes`, { signal }),
    enabled: userUid !== null,
  });
}
