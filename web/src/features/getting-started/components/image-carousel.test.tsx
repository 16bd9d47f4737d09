// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ImageCarousel } from './image-carousel.tsx';

describe('ImageCarousel', () => {
  it('opens each picture at full size in a tab of its own (QA: unreadable on a phone), and moves with Next', async () => {
    const user = userEvent.setup();
    render(<ImageCarousel label="Dashboard" slides={[{ src: '/tutorial/a.png', caption: 'Premium Income' }, { src: '/tutorial/b.png', caption: 'Income Quadrant' }]} />);
    const full = screen.getByRole('link', { name: 'Premium Income (open at full size)' });
    expect([full.getAttribute('href'), full.getAttribute('target')]).toEqual(['/tutorial/a.png', '_blank']);
    await user.click(screen.getByRole('button', { name: 'Next picture' }));
    expect(screen.getByRole('link', { name: 'Income Quadrant (open at full size)' }).getAttribute('href')).toBe('/tutorial/b.png');
  });
});
