// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/react';
import { ChangeThumb } from './change-thumb.tsx';

describe('ChangeThumb', () => {
  it('shows the picture while its file is served', () => {
    render(<ChangeThumb label="Avatar" src="/api/v1/uploads/avatar-aaaaaaaaaaaaaaaaaaaaaaaa.jpg" />);
    expect(screen.getByRole('img', { name: 'Avatar image' })).toBeTruthy();
  });

  it('says a replaced picture was deleted instead of a broken image (QA: the profile changes showed broken icons)', () => {
    render(<ChangeThumb label="Avatar" src="/api/v1/uploads/avatar-bbbbbbbbbbbbbbbbbbbbbbbb.jpg" />);
    fireEvent.error(screen.getByRole('img', { name: 'Avatar image' }));
    expect(screen.queryByRole('img')).toBeNull();
    expect(screen.getByText('Replaced (file deleted)')).toBeTruthy();
  });
});
