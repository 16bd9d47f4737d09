import { useNewerConsoleBuild } from '@/lib/console-build.ts';

/**
 * Says so once the gateway serves another console build than this tab's (the journal was upgraded while
 * the tab stayed open), with Reload: the tab's figures and code are the old release's until then (QA 73).
 */
export function NewVersionBanner() {
  const newer = useNewerConsoleBuild();
  if (!newer) return null;
  return (
    <div className="offline-banner new-version-banner" role="status" aria-live="polite">
      A new version of Options Journal is running.{' '}
      <button type="button" className="link-button" onClick={() => window.location.reload()}>
        Reload to use it
      </button>
    </div>
  );
}
