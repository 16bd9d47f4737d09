import { useSyncExternalStore } from 'react';

/**
 * Display settings kept in the browser. Items per page is the list page size (default 10, the spec's
 * stored ItemsPerPage setting); lists key their queries by it, so changing it starts them over.
 */
export const ITEMS_PER_PAGE_KEY = 'ItemsPerPage';
export const ITEMS_PER_PAGE_OPTIONS = [10, 25, 50] as const;
export const DEFAULT_ITEMS_PER_PAGE = 10;

const listeners = new Set<() => void>();

export function getItemsPerPage(): number {
  try {
    const n = Number(localStorage.getItem(ITEMS_PER_PAGE_KEY));
    return (ITEMS_PER_PAGE_OPTIONS as readonly number[]).includes(n) ? n : DEFAULT_ITEMS_PER_PAGE;
  } catch {
    return DEFAULT_ITEMS_PER_PAGE;
  }
}

export function setItemsPerPage(n: number): void {
  try {
    localStorage.setItem(ITEMS_PER_PAGE_KEY, String(n));
  } catch {
    // not persisted
  }
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => e.key === ITEMS_PER_PAGE_KEY && listener();
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** The page size for trade lists (10, 25 or 50). */
export function useItemsPerPage(): number {
  return useSyncExternalStore(subscribe, getItemsPerPage, () => DEFAULT_ITEMS_PER_PAGE);
}
