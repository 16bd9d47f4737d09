export function AccountsRoute() {
  return <main className="page">AccountsRoute</main>;
}
