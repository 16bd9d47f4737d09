/** Privacy Policy (part 2 §2): its 11 sections. */
const sections: [string, string][] = [
  ['1. Data we collect', 'Your name, e-mail address, password (stored only as a secure hash), profile details you choose to add, your trade accounts and the trades you record.'],
  ['2. How we use it', 'To run the journal: show your trades, compute your statistics, send account e-mails (verification, password reset, billing reminders).'],
  ['3. Improving the service', 'We may use aggregated, non-identifying usage information to improve the product.'],
  ['4. Sharing', 'We do not sell your data. We share it only with processors that help run the service (hosting, e-mail, card payments), under contract.'],
  ['5. Security', 'Data is encrypted in transit; passwords are hashed; access is limited to what running the service needs.'],
  ['6. Retention', 'We keep your data while your account exists, and delete it within a reasonable time after you ask us to close it.'],
  ['7. Your rights', 'You can see, correct, export or delete your personal data. Contact us to exercise these rights.'],
  ['8. Children', 'The service is not for anyone under 18, and we do not knowingly collect their data.'],
  ['9. Third-party links', 'Links to brokerages and other sites are governed by their own privacy policies.'],
  ['10. Changes', 'We will post any change to this policy here and, for important changes, tell you by e-mail.'],
  ['11. Contact', 'Questions about privacy? Use the Contact page in the app.'],
];

export function PrivacyContent() {
  return (
    <>
      {sections.map(([title, text]) => (
        <section key={title}>
          <h3>{title}</h3>
          <p>{text}</p>
        </section>
      ))}
    </>
  );
}
