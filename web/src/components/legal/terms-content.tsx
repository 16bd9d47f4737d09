/** Terms of Service (part 2 §2): the sections the spec lists, last updated December 2024. */
const sections: [string, string][] = [
  ['1. Agreement to terms', 'By creating an account or using Options Journal you agree to these terms. If you do not agree, do not use the service.'],
  ['2. Intellectual property', 'The service, its software, design and content are owned by Options Journal. Your trade records remain yours.'],
  ['3. User representations', 'You confirm that you are 18 or older, that the information you give is true, and that you use the service lawfully.'],
  ['4. Registration', 'You keep your password confidential and are responsible for activity under your account. Tell us at once about any unauthorised use.'],
  ['5. Licence to your data', 'You grant us a limited licence to store and process the data you enter, only to run the service for you.'],
  ['6. Third-party links', 'The service links to brokerages and other sites we do not control and are not responsible for.'],
  ['7. Availability', 'We aim for continuous availability but do not guarantee it; maintenance or problems may interrupt the service.'],
  ['8. Fees and payments', 'Premium costs 4.99 USD per month after a 30-day free trial. Prices are in US dollars; subscriptions renew automatically; we announce price changes in advance.'],
  ['9. Cancellation', 'You may cancel at any time. Access stays active to the end of the current billing cycle. Unused time is not refunded.'],
  ['10. No financial advice', 'Options Journal is for record-keeping and education only. Nothing in it is investment, tax or financial advice.'],
  ['11. Acceptable use', 'Do not misuse the service: no attempts to break security, overload systems, scrape data or infringe the rights of others.'],
  ['12. Limitation of liability', 'To the extent the law allows, we are not liable for indirect or consequential losses, or for trading decisions you make.'],
  ['13. Indemnity', 'You agree to hold us harmless from claims arising from your breach of these terms or your misuse of the service.'],
  ['14. Governing law', 'These terms are governed by the laws of the State of Washington. Disputes are resolved by binding arbitration.'],
  ['15. Force majeure', 'We are not responsible for failures caused by events beyond our reasonable control.'],
  ['16. Changes', 'We may update these terms. Continued use after an update means you accept the new terms.'],
];

export function TermsContent() {
  return (
    <>
      <p>
        <strong>Last updated: December 2024</strong>
      </p>
      {sections.map(([title, text]) => (
        <section key={title}>
          <h3>{title}</h3>
          <p>{text}</p>
        </section>
      ))}
    </>
  );
}
