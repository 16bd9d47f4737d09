import { useSyncExternalStore } from 'react';
import { onlineManager } from '@tanstack/react-query';

const subscribe = (onChange: () => void) => onlineManager.subscribe(onChange);
const isOnline = () => onlineManager.isOnline();

/**
 * Says so while the browser is offline. The queries wait for the connection rather than fail (TanStack
 * Query pauses them), so without this a screen would show a spinner and no reason; they load on their
 * own once it returns. It follows the query client's own idea of online, the one that pauses them.
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
