export function TermsContent() {
  return <p>Terms of Service.</p>;
}
