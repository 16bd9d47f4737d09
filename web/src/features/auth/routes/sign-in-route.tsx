export function SignInRoute() {
  return <main className="page">SignInRoute</main>;
}
