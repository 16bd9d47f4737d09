import { useEffect, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { ImageCarousel } from '../components/image-carousel.tsx';
import { tutorialSections, type TutorialSection } from '../data/sections.ts';
import '../components/getting-started.css';

// Bundled as hashed assets: the file name in sections.ts is the key.
const imageUrls = import.meta.glob<string>('../images/*.jpg', { eager: true, query: '?url', import: 'default' });
const urlOf = (file: string): string | undefined => imageUrls[`../images/${file}`];

function Section({ section }: { section: TutorialSection }) {
  const [showExtra, setShowExtra] = useState(false);
  return (
    <section className="card tutorial-section" id={section.id} aria-labelledby={`${section.id}-title`}>
      <div className="tutorial-text">
        <h2 id={`${section.id}-title`} className="card-title">
          {section.title}
        </h2>
        {section.paragraphs.map((p) => (
          <p key={p}>{p}</p>
        ))}
        {section.points && (
          <ul className="tutorial-points">
            {section.points.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        {section.extra && (
          <div className="tutorial-extra">
            <button type="button" className="link-button" aria-expanded={showExtra} aria-controls={showExtra ? `${section.id}-extra` : undefined} onClick={() => setShowExtra((s) => !s)}>
              {showExtra ? `Hide: ${section.extra.title}` : section.extra.title}
            </button>
            {showExtra && (
              <ul id={`${section.id}-extra`} className="tutorial-points">
                {section.extra.points.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
      <ImageCarousel label={section.title} slides={section.shots.map((s) => ({ src: urlOf(s.file), caption: s.caption }))} />
    </section>
  );
}

/** Getting Started (part 2 §2): seven sections, each with pictures of the real console. */
export function GettingStartedRoute() {
  // A link or a reload with a section's anchor (/getting-started#breaking) lands on it: the browser looked
  // for the anchor before this lazily loaded page had drawn it (QA: a reload stayed at the top).
  const { hash } = useLocation();
  useEffect(() => {
    const id = decodeURIComponent(hash.slice(1));
    if (id) document.getElementById(id)?.scrollIntoView();
  }, [hash]);
  return (
    <>
      <PageHeader
        title="Getting Started"
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Getting Started' }]}
        description={
          <>
            From your first trade account to rolling and breaking trades. Questions left? See the <Link to="/faq">FAQ</Link>.
          </>
        }
      />
      <nav className="tutorial-toc" aria-label="Sections">
        {tutorialSections.map((s) => (
          <a key={s.id} href={`#${s.id}`}>
            {s.title}
          </a>
        ))}
      </nav>
      <div className="tutorial">
        {tutorialSections.map((s) => (
          <Section key={s.id} section={s} />
        ))}
      </div>
    </>
  );
}
