import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { ErrorPage } from './error-page.tsx';

describe('error page', () => {
  it('offers "Go back home" as a button (part 2 §2), not a link', () => {
    const html = renderToStaticMarkup(
      <MemoryRouter initialEntries={['/no/such/page']}>
        <ErrorPage code="404" title="Page not found" message="The page you are looking for does not exist or has been moved." />
      </MemoryRouter>,
    );
    expect(html).toMatch(/<button type="button" class="btn btn-primary btn-md"><span class="btn-label">Go back home<\/span><\/button>/);
    expect(html).not.toContain('<a');
  });
});
