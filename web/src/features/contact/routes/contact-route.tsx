import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { CONTACT_MESSAGE_MAX, CONTACT_SUBJECT_MAX, contactMessages, contactUsRequest } from '@oj/contracts/users';
import { ApiError } from '@/lib/api-client.ts';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { FormField, TextArea, TextInput } from '@/components/ui/form-field.tsx';
import { useOneSubmission } from '@/lib/use-one-submission.ts';
import { restoreShape } from '@/lib/session-drafts.ts';
import { useKeptInput } from '@/features/auth/hooks/use-kept-input.ts';
import { useSendContactMessage } from '../api/send-contact-message.ts';
import '../components/contact.css';

const CONTACT_RESTORED = 'Your session ended before this message was sent, so nothing was sent. What you had written is back: check it, then submit.';

/** Contact Us (part 2 §2, §5, §8): Subject and Message, both required. */
export function ContactRoute() {
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [result, setResult] = useState<{ tone: 'success' | 'danger' | 'info'; text: string } | null>(null);
  const send = useSendContactMessage();
  // A message written while the session runs out (a submit refused, the sign-in page) is not lost.
  useKeptInput(
    'contact',
    () => (subject === '' && message === '' ? undefined : { subject, message }),
    (kept) => {
      const back = restoreShape({ subject: '', message: '' }, kept);
      setSubject(back.subject);
      setMessage(back.message);
      setResult({ tone: 'info', text: CONTACT_RESTORED });
    },
  );

  const once = useOneSubmission();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    // The contract the server validates with: the same message for a blank field here and there.
    const parsed = contactUsRequest.safeParse({ subject, message });
    if (!parsed.success) {
      setResult({ tone: 'danger', text: parsed.error.issues[0]?.message ?? contactMessages.required });
      return;
    }
    once((settled) =>
      send.mutate(parsed.data, {
        onSuccess: () => {
          setSubject('');
          setMessage('');
          setResult({ tone: 'success', text: contactMessages.success });
        },
        onError: (error) =>
          setResult({
            tone: 'danger',
            // A refusal the user can act on (too many messages, a too-long text) keeps its reason.
            text: error instanceof ApiError && (error.status === 422 || error.status === 429) ? `${contactMessages.failed}: ${error.message}` : contactMessages.failed,
          }),
        onSettled: settled,
      }),
    );
  };

  return (
    <>
      <PageHeader title="Contact Us" breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Contact Us' }]} />
      <div className="contact-layout">
        {/* Not a named region: "Send us a message" would be one more element labelled "Message" beside the field. */}
        <section className="card">
          <h2 className="card-title">
            Send us a message
          </h2>
          <p className="muted">
            Questions about trades, rolls, billing or a problem you found: we read every message and answer by e-mail. Many answers are already in the <Link to="/faq">FAQ</Link>.
          </p>
          {result && (
            <Alert tone={result.tone} onClose={() => setResult(null)}>
              {result.text}
            </Alert>
          )}
          <form className="form" onSubmit={onSubmit} noValidate aria-label="Contact form">
            <FormField label="Subject" required>
              {({ id, describedBy }) => (
                <TextInput id={id} name="subject" value={subject} maxLength={CONTACT_SUBJECT_MAX} onChange={(e) => setSubject(e.target.value)} aria-describedby={describedBy} />
              )}
            </FormField>
            <FormField label="Message" required aside={<span className="muted message-meta">{message.length} / {CONTACT_MESSAGE_MAX}</span>}>
              {({ id, describedBy }) => (
                <TextArea id={id} name="message" rows={8} value={message} maxLength={CONTACT_MESSAGE_MAX} onChange={(e) => setMessage(e.target.value)} aria-describedby={describedBy} />
              )}
            </FormField>
            <div className="form-actions">
              <Button type="submit" loading={send.isPending}>
                {send.isPending ? 'Sending...' : 'Submit'}
              </Button>
            </div>
          </form>
        </section>
      </div>
    </>
  );
}
