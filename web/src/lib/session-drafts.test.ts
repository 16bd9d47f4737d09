// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { DRAFT_MAX_AGE_MS, dropSessionDraft, forgetSessionDrafts, keepOnSessionEnd, keepSessionDraftsOnlyFor, peekSessionDraft, restoreShape, saveDraftsForSessionEnd } from './session-drafts.ts';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  sessionStorage.clear();
});
const keep = (key: string, value: unknown) => stops.push(keepOnSessionEnd(key, () => value));

describe('input kept when a session runs out', () => {
  it("gives each open form its own input back, for the same user only, once", () => {
    keep('add-trade:open', { values: { ticker: 'SPY' } });
    keep('add-trade:closed', undefined); // opened, nothing typed
    saveDraftsForSessionEnd('u-1', 1_000);
    expect(peekSessionDraft('add-trade:closed', 'u-1', 2_000)).toBeUndefined();
    // Read twice (a render repeated) until the form drops it.
    expect(peekSessionDraft('add-trade:open', 'u-1', 2_000)).toEqual({ values: { ticker: 'SPY' } });
    expect(peekSessionDraft('add-trade:open', 'u-1', 2_000)).toEqual({ values: { ticker: 'SPY' } });
    dropSessionDraft('add-trade:open');
    expect(peekSessionDraft('add-trade:open', 'u-1', 2_000)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });

  it('offers nothing to another user signing in on the tab, and forgets it for everyone', () => {
    keep('add-trade:open', { values: { ticker: 'SPY' } });
    saveDraftsForSessionEnd('u-1', 1_000);
    expect(peekSessionDraft('add-trade:open', 'u-2', 2_000)).toBeUndefined();
    expect(peekSessionDraft('add-trade:open', 'u-1', 2_000)).toBeUndefined();
  });

  it('drops what was kept for another user as soon as somebody else signs in on the tab, unread', () => {
    keep('add-trade:open', { values: { ticker: 'SPY' } });
    saveDraftsForSessionEnd('u-1', 1_000);
    keepSessionDraftsOnlyFor('u-1');
    expect(sessionStorage.length).toBe(1);
    keepSessionDraftsOnlyFor('u-2');
    expect(sessionStorage.length).toBe(0);
  });

  it('offers nothing after an hour, nor after a sign-out, nor without a user', () => {
    keep('add-trade:open', { values: { ticker: 'SPY' } });
    saveDraftsForSessionEnd('u-1', 1_000);
    expect(peekSessionDraft('add-trade:open', 'u-1', 1_000 + DRAFT_MAX_AGE_MS + 1)).toBeUndefined();
    saveDraftsForSessionEnd('u-1', 1_000);
    forgetSessionDrafts();
    expect(peekSessionDraft('add-trade:open', 'u-1', 2_000)).toBeUndefined();
    saveDraftsForSessionEnd(null, 1_000);
    expect(sessionStorage.length).toBe(0);
  });

  it('keeps nothing of a form closed before the session ran out', () => {
    const stop = keepOnSessionEnd('add-trade:open', () => ({ values: { ticker: 'SPY' } }));
    stop();
    saveDraftsForSessionEnd('u-1', 1_000);
    expect(sessionStorage.length).toBe(0);
  });

  it("reads what storage gives back in the form's own shape only", () => {
    const base = { ticker: '', strikes: [] as string[], notes: '' };
    expect(restoreShape(base, { ticker: 'QQQ', strikes: ['400', '395'], notes: 7, extra: 'x' })).toEqual({ ticker: 'QQQ', strikes: ['400', '395'], notes: '' });
    expect(restoreShape(base, { strikes: [400] })).toEqual(base);
    expect(restoreShape(base, 'junk')).toEqual(base);
    sessionStorage.setItem('oj.session.drafts', '{not json');
    expect(peekSessionDraft('add-trade:open', 'u-1')).toBeUndefined();
  });
});
