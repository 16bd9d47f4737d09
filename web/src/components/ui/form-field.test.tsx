import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { FormField, PasswordInput } from './form-field.tsx';

describe('password field', () => {
  it('names only the input "Password": the show/hide toggle is "Show characters", its state in aria-pressed', () => {
    const html = renderToStaticMarkup(<FormField label="Password">{({ id }) => <PasswordInput id={id} name="password" />}</FormField>);
    const labels = [...html.matchAll(/aria-label="([^"]*)"/g)].map((m) => m[1]);
    expect(labels).toEqual(['Show characters']);
    expect(labels.some((l) => /password/i.test(l ?? ''))).toBe(false);
    expect(html).toMatch(/<button type="button" class="input-addon-button" aria-label="Show characters" aria-pressed="false">/);
    expect(html).toContain('type="password"');
  });
});
