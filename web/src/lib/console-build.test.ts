// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { noteServedBuild, ownConsoleBuild, useNewerConsoleBuild } from './console-build.ts';

/**
 * A tab left open across an upgrade (QA 73): it runs the build its page loaded, and each API answer names
 * the build the gateway serves now; once they differ, the tab is told (NewVersionBanner offers a reload).
 */
describe('the console build this tab runs, against the one served', () => {
  it("reads the page's entry script; a development server's page has none", () => {
    const page = document.implementation.createHTMLDocument('');
    expect(ownConsoleBuild(page)).toBeNull();
    page.head.innerHTML = '<script type="module" crossorigin src="/assets/index-Js2OhMe1.js"></script>';
    expect(ownConsoleBuild(page)).toBe('index-Js2OhMe1.js');
  });

  it("says nothing while the gateway serves this tab's build, and names another once it does", () => {
    document.head.innerHTML = '<script type="module" crossorigin src="/assets/index-old1.js"></script>';
    const { result } = renderHook(() => useNewerConsoleBuild());
    act(() => {
      noteServedBuild(null);
      noteServedBuild('index-old1.js');
    });
    expect(result.current).toBeNull();
    act(() => noteServedBuild('index-new2.js'));
    expect(result.current).toBe('index-new2.js');
  });
});
