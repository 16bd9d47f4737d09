import { useSyncExternalStore } from 'react';
import { onlineManager } from '@tanstack/react-query';

const subscribe = (onChange: () => void) => {
  const unsubscribe = onlineManager.subscribe(onChange);
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    unsubscribe();
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
};
// The query client starts out assuming it is online; a page that loaded offline is known by the browser.
const isOnline = () => onlineManager.isOnline() && navigator.onLine;

/**
 * Says so while the browser is offline. The queries wait for the connection rather than fail (TanStack
 * Query pauses them), so without this a screen would show a spinner and no reason; they load on their
 * own once it returns. It follows the query client's idea of online (the one that pauses them) and the
 * browser's, which also knows about a page that loaded while offline.
 */
export function OfflineBanner() {
  const online = useSyncExternalStore(subscribe, isOnline, () => true);
  if (online) return null;
  return (
    <div className="offline-banner" role="status" aria-live="polite">
      You are offline. The journal will load and save again when the connection returns.
    </div>
  );
}
