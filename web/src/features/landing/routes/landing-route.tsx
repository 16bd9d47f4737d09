export function LandingRoute() {
  return <main className="page">LandingRoute</main>;
}
