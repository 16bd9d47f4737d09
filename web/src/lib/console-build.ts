import { useSyncExternalStore } from 'react';
import { consoleBuildOfSrc } from '@oj/contracts/common';

/**
 * Which console build this tab runs, against the one the gateway serves now (the `x-oj-console` header of
 * every API answer: its entry script's hashed name). They differ once the journal was upgraded while the
 * tab stayed open (QA 73: the tab kept the old release's figures, and its screens not loaded yet failed as
 * "500"): the tab then offers to reload (NewVersionBanner). A development server's scripts are not hashed
 * entry files, so there it never differs.
 */
export { CONSOLE_BUILD_HEADER } from '@oj/contracts/common';

/** The entry script's name in `doc` (`index-Js2OhMe1.js`), or null (a development server). */
export function ownConsoleBuild(doc: Document = document): string | null {
  const src = doc.querySelector<HTMLScriptElement>('script[type="module"][src*="/assets/index-"]')?.getAttribute('src');
  return src ? consoleBuildOfSrc(src) : null;
}

let own: string | null | undefined;
let served: string | null = null;
const listeners = new Set<() => void>();

/** Told the build named by an API answer; a build other than this tab's is remembered and said. */
export function noteServedBuild(build: string | null): void {
  if (!build || typeof document === 'undefined') return;
  own ??= ownConsoleBuild();
  if (!own || build === own || build === served) return;
  served = build;
  for (const l of listeners) l();
}

/** The newer build the gateway serves, or null while it serves this tab's. */
export function useNewerConsoleBuild(): string | null {
  return useSyncExternalStore(
    (onChange) => (listeners.add(onChange), () => listeners.delete(onChange)),
    () => served,
    () => null,
  );
}
