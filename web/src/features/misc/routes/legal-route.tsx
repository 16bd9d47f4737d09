import { PageHeader } from '@/components/layout/page-header.tsx';
import { PrivacyContent } from '@/components/legal/privacy-content.tsx';
import { TermsContent } from '@/components/legal/terms-content.tsx';

export function TermsRoute() {
  return (
    <>
      <PageHeader title="Terms of Service" breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Terms' }]} />
      <article className="card prose">
        <TermsContent />
      </article>
    </>
  );
}

export function PrivacyRoute() {
  return (
    <>
      <PageHeader title="Privacy Policy" breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Privacy' }]} />
      <article className="card prose">
        <PrivacyContent />
      </article>
    </>
  );
}
