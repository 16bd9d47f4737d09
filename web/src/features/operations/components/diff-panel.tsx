import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { useDiff } from '../api/operations-api.ts';
import { figureLabel, figureSentence, int, short } from './format.ts';

/** The new version against live: per-figure deltas first (what an operator checks), then row counts. */
export function DiffPanel({
  name,
  version,
  onSwitch,
  onClose,
  onCatchUp,
  canSwitch,
}: {
  name: string;
  version: number;
  onSwitch: () => void;
  onClose: () => void;
  onCatchUp: (() => void) | undefined;
  canSwitch: boolean;
}) {
  const diff = useDiff(name, version);
  const d = diff.data;
  return (
    <section className="ops-diff" aria-label={`Differences of ${name} v${version} against live`} data-testid="diff-panel">
      <header className="ops-diff-head">
        <h3>
          v{version} against live{d ? ` v${d.live.version}` : ''}
        </h3>
        <div className="ops-diff-actions">
          {canSwitch && d && (
            <Button size="sm" onClick={onSwitch}>
              Switch to v{version}
            </Button>
          )}
          <Button size="sm" variant="ghost" onClick={onClose}>
            Close
          </Button>
        </div>
      </header>
      {diff.isPending && (
        <div className="ops-center">
          <Spinner label="Comparing versions" />
        </div>
      )}
      {diff.isError && <Alert tone="danger">{errorMessage(diff.error, 'Could not compare the versions.')}</Alert>}
      {d && (
        <>
          {d.otherBehind !== null && d.otherBehind > 0 && (
            <Alert tone="info" title={`v${version} stops where it was built`}>
              {int(d.otherBehind)} event{d.otherBehind === 1 ? '' : 's'} came after it; rows they touch differ from live until it is caught up (a switch catches up first).{' '}
              {onCatchUp && (
                <Button size="sm" variant="link" onClick={onCatchUp}>
                  Catch up v{version}
                </Button>
              )}
            </Alert>
          )}
          {d.identical ? (
            <Alert tone="success" title="Identical">
              Every table of v{d.other.version} holds exactly the rows of the live v{d.live.version}.
            </Alert>
          ) : d.figures.length ? (
            <ul className="ops-figures" data-testid="figure-deltas">
              {d.figures.map((f, i) => (
                <li key={`${f.table}.${f.column}`}>
                  <details open={i === 0}>
                  <summary>{figureSentence(f)}</summary>
                  <table className="ops-table ops-table--compact">
                    <thead>
                      <tr>
                        <th>Row</th>
                        <th>User</th>
                        <th className="num">Live</th>
                        <th className="num">v{d.other.version}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {f.samples.map((s, i) => (
                        <tr key={i}>
                          <td className="mono">{short(Object.values(s.key).join(' · '))}</td>
                          <td className="mono">{short(s.user)}</td>
                          <td className="num">{short(s.live)}</td>
                          <td className="num">{short(s.other)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  {f.rowsChanged > f.samples.length && <p className="ops-muted">Largest {f.samples.length} of {int(f.rowsChanged)} shown.</p>}
                  </details>
                </li>
              ))}
            </ul>
          ) : (
            <Alert tone="warning">No figure changed in matching rows; rows were added or removed (below).</Alert>
          )}
          <div className="ops-table-wrap">
            <table className="ops-table ops-diff-tables" data-testid="diff-tables">
              <thead>
                <tr>
                  <th>Table</th>
                  <th className="num">Rows live</th>
                  <th className="num">Rows v{d.other.version}</th>
                  <th className="num">Changed rows</th>
                  <th>Totals that differ</th>
                </tr>
              </thead>
              <tbody>
                {d.tables.map((t) => {
                  const keyed = d.keyed.find((k) => k.table === t.table);
                  return (
                    <tr key={t.table}>
                      <td>
                        {t.table} {t.shapeChanged && <Badge tone="warning" title={t.shapeChanged}>shape changed</Badge>}
                      </td>
                      <td className="num">{int(t.rowsLive)}</td>
                      <td className="num">{int(t.rowsOther)}</td>
                      <td className="num">
                        {int(Math.max(t.onlyInLive, t.onlyInOther))}
                        {keyed && (keyed.onlyInLive || keyed.onlyInOther) ? (
                          <span className="ops-muted">
                            {' '}
                            (−{int(keyed.onlyInLive)} / +{int(keyed.onlyInOther)} keys)
                          </span>
                        ) : null}
                      </td>
                      <td>
                        {t.totals.length || t.categories.length ? (
                          <>
                            {t.totals.map((x) => (
                              <span key={x.column} className="ops-total">
                                {figureLabel(x.column)} {short(x.live)} → {short(x.other)}
                              </span>
                            ))}
                            {/* A code (a status, a list) is not summed: its rows per value that changed. */}
                            {t.categories.map((x) => (
                              <span key={x.column} className="ops-total" title={`Rows per ${x.column} value`}>
                                {figureLabel(x.column)} {changedValues(x.live, x.other)}
                              </span>
                            ))}
                          </>
                        ) : (
                          '—'
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** Rows per value of a code column, only the values whose count changed: "=1: 12 → 11 · =2: 3 → 4". */
function changedValues(live: Record<string, number>, other: Record<string, number>): string {
  const values = [...new Set([...Object.keys(live), ...Object.keys(other)])].filter((v) => (live[v] ?? 0) !== (other[v] ?? 0));
  return values.map((v) => `=${v}: ${int(live[v] ?? 0)} → ${int(other[v] ?? 0)}`).join(' · ');
}
