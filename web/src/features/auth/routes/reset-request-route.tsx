export function ResetRequestRoute() {
  return <main className="page">ResetRequestRoute</main>;
}
