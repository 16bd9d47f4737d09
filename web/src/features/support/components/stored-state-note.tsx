import type { StoredStateUse } from '@oj/contracts/audit';
import { utc } from './labels.ts';

/**
 * Where a replay started: support reads whether the answer came from a stored replay state (the fold of
 * every event before it, kept by the projector's maintenance job) and how many events were replayed
 * after it, or from the user's first event.
 */
export function StoredStateNote({ stored }: { stored: StoredStateUse | null }) {
  if (!stored) return <div className="muted audit-small">Started from the user's first event.</div>;
  return (
    <div className="muted audit-small">
      Started from the stored replay state after event {stored.events.toLocaleString('en-US')} (stored {utc(stored.stored_at)}), then replayed the{' '}
      {stored.events_after.toLocaleString('en-US')} events after it.
    </div>
  );
}
