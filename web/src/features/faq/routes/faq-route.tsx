import { useMemo, useState, type MouseEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { TextInput } from '@/components/ui/form-field.tsx';
import { faqCategories, faqEntries, type FaqCategory } from '../data/faq-entries.ts';
import { answerText, sanitizeAnswer } from '../utils/sanitize-answer.ts';
import '../components/faq.css';

export const NO_RESULTS = 'No results found. Try a different search term.';
type Filter = FaqCategory | 'All';

/** Every word of the query must appear in the question or the answer (case-insensitive). */
function matches(haystack: string, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return words.every((w) => haystack.includes(w));
}

/** FAQ (part 2 §2): search, four categories, an accordion with one entry open, answers as sanitised HTML. */
export function FaqRoute() {
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const [category, setCategory] = useState<Filter>('All');
  const [openId, setOpenId] = useState<string | null>(faqEntries[0]?.id ?? null);

  // Sanitised once: the data never changes while the page is open.
  const entries = useMemo(
    () =>
      faqEntries.map((e) => {
        const html = sanitizeAnswer(e.answer);
        return { ...e, html, haystack: `${e.question} ${answerText(e.answer)}`.toLowerCase() };
      }),
    [],
  );
  const visible = entries.filter((e) => (category === 'All' || e.category === category) && matches(e.haystack, query));

  // Links inside answers go through the router (no full page load) when they point into the console.
  const onAnswerClick = (event: MouseEvent<HTMLDivElement>) => {
    const anchor = (event.target as HTMLElement).closest('a');
    const href = anchor?.getAttribute('href');
    if (!anchor || !href?.startsWith('/') || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    void navigate(href);
  };

  return (
    <>
      <PageHeader title="Frequently Asked Questions" breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'FAQ' }]} />
      <div className="faq-page">
        <Alert tone="info">
          Dates use US Eastern time (New York). If you are overseas, a date that is already today for you may still be tomorrow in New York, and the journal refuses it as a future date.
        </Alert>
        <div className="faq-toolbar">
          <TextInput type="search" className="faq-search" placeholder="Search questions and answers" aria-label="Search the FAQ" value={query} onChange={(e) => setQuery(e.target.value)} />
          <div className="faq-categories" role="group" aria-label="Categories">
            {(['All', ...faqCategories] as Filter[]).map((c) => (
              <button key={c} type="button" className={`faq-category${category === c ? ' active' : ''}`} aria-pressed={category === c} onClick={() => setCategory(c)}>
                {c}
              </button>
            ))}
          </div>
        </div>
        {visible.length === 0 ? (
          <p className="faq-empty" role="status">
            {NO_RESULTS}
          </p>
        ) : (
          <div className="faq-accordion">
            {visible.map((e) => {
              const open = openId === e.id;
              return (
                <section key={e.id} className={`faq-entry${open ? ' open' : ''}`} data-faq-id={e.id}>
                  <h2 className="faq-question">
                    <button type="button" id={`faq-q-${e.id}`} aria-expanded={open} aria-controls={open ? `faq-a-${e.id}` : undefined} onClick={() => setOpenId(open ? null : e.id)}>
                      <span>{e.question}</span>
                      <span className="faq-tag">{e.category}</span>
                    </button>
                  </h2>
                  {open && (
                    // The only raw HTML in the console: sanitised by DOMPurify with a tag and URL whitelist (sanitize-answer.ts).
                    <div id={`faq-a-${e.id}`} role="region" aria-labelledby={`faq-q-${e.id}`} className="faq-answer" onClick={onAnswerClick} dangerouslySetInnerHTML={{ __html: e.html }} />
                  )}
                </section>
              );
            })}
          </div>
        )}
        <p className="faq-contact">
          Did not find your answer? <Link to="/contact">Contact us</Link>.
        </p>
      </div>
    </>
  );
}
