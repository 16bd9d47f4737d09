export function PrivacyContent() {
  return <p>Privacy Policy.</p>;
}
