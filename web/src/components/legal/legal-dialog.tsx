import { Button } from '../ui/button.tsx';
import { Modal } from '../ui/modal.tsx';
import { PrivacyContent } from './privacy-content.tsx';
import { TermsContent } from './terms-content.tsx';

/** Terms of Service or Privacy Policy as an extra-large dialog (footer and sign-up links). */
export function LegalDialog({ which, onClose }: { which: 'terms' | 'privacy' | null; onClose: () => void }) {
  return (
    <Modal
      open={which !== null}
      onClose={onClose}
      size="xl"
      title={which === 'privacy' ? 'Privacy Policy' : 'Terms of Service'}
      footer={<Button onClick={onClose}>Close</Button>}
    >
      <div className="prose">{which === 'privacy' ? <PrivacyContent /> : <TermsContent />}</div>
    </Modal>
  );
}
