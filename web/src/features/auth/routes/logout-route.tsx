export function LogoutRoute() {
  return <main className="page">LogoutRoute</main>;
}
