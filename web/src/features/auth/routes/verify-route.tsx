export function VerifyRoute() {
  return <main className="page">VerifyRoute</main>;
}
