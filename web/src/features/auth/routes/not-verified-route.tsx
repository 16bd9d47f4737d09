export function NotVerifiedRoute() {
  return <main className="page">NotVerifiedRoute</main>;
}
