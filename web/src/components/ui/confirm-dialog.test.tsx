// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ConfirmDialog } from './confirm-dialog.tsx';

describe('ConfirmDialog', () => {
  it('opens a danger confirm on Cancel: Enter pressed twice deletes nothing (QA)', async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn();
    const onCancel = vi.fn();
    render(<ConfirmDialog open title="Confirm Delete" message="Delete it?" tone="danger" onConfirm={onConfirm} onCancel={onCancel} />);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' })));
    await user.keyboard('{Enter}');
    expect(onConfirm).not.toHaveBeenCalled();
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('opens any other confirm on its confirm button', async () => {
    render(<ConfirmDialog open title="Make Default" onConfirm={() => {}} onCancel={() => {}} />);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Yes' })));
  });
});
