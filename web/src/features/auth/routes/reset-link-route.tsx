export function ResetLinkRoute() {
  return <main className="page">ResetLinkRoute</main>;
}
