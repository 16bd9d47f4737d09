export function SignUpRoute() {
  return <main className="page">SignUpRoute</main>;
}
