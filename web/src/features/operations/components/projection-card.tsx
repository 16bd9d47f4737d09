import { useEffect, useRef, useState } from 'react';
import { builtVersionAdvice, catchUpRefusal, codeVersionLabel, rebuildRequest, STALE_CHOICE_RESOLUTION, type OperationsLive, type ProjectionsStatusResponse } from '@oj/contracts/operations';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge, type BadgeTone } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { Checkbox, FormField, TextInput } from '@/components/ui/form-field.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { ApiError, errorMessage } from '@/lib/api-client.ts';
import type { UpsertRebuild } from '../api/use-operations-stream.ts';
import { useAbandon, useRebuild, useRetire, useRollback, useSwitch } from '../api/operations-api.ts';
import { DiffPanel } from './diff-panel.tsx';
import { idleBuild, int, laneState, position, timeAgo } from './format.ts';
import { LagChart } from './lag-chart.tsx';
import { RebuildProgress } from './rebuild-progress.tsx';
import { useSendOnce } from './use-send-once.ts';

type ProjectionStatus = ProjectionsStatusResponse['projections'][number];
/** A rollback names the live version the dialog said it replaces (`from`), as the request does. */
type Confirm =
  | { kind: 'rebuild' }
  | { kind: 'switch'; version: number }
  | { kind: 'rollback'; version: number; from: number | null }
  | { kind: 'retire'; version: number }
  | { kind: 'abandon'; version: number };
/** One opening of the "Rebuild one user" dialog (a new object each time it opens). */
type UserRebuildOpening = { kind: 'rebuild-user' };

const statusTone: Record<string, BadgeTone> = { live: 'success', building: 'primary', retired: 'neutral' };

/** One read model: its versions, lanes with live lag, rebuild progress, and the operator's actions on it. */
export function ProjectionCard({ projection, live, onRebuildStarted }: { projection: ProjectionStatus; live: OperationsLive | null; onRebuildStarted: UpsertRebuild }) {
  const toast = useToast();
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const confirmRef = useRef(confirm);
  confirmRef.current = confirm;
  // After a confirmed action the dialog closes and would hand focus back to the button that opened it,
  // which is by then disabled (Rebuild while it runs) or gone (Switch, Abandon, Roll back once the status
  // changes): focus fell to <body> (QA). The card's heading takes it instead, where the keyboard user
  // reads what changed. Run after the dialog's own clean-up (effects of a child are torn down first).
  const titleRef = useRef<HTMLHeadingElement>(null);
  const focusTitle = useRef(false);
  useEffect(() => {
    if (confirm !== null || !focusTitle.current) return;
    focusTitle.current = false;
    titleRef.current?.focus();
  }, [confirm]);
  const [switchWhenBuilt, setSwitchWhenBuilt] = useState(false);
  const [compare, setCompare] = useState<number | null>(null);
  const [userDialog, setUserDialog] = useState<UserRebuildOpening | null>(null);
  const [userId, setUserId] = useState('');
  const [userError, setUserError] = useState<string | null>(null);
  const rebuild = useRebuild();
  // Its own mutation: its pending state is the one-user dialog's, not the rebuild confirm's.
  const rebuildUser = useRebuild();
  const doSwitch = useSwitch();
  const rollback = useRollback();
  const retire = useRetire();
  const abandon = useAbandon();
  const name = projection.name;

  const versions = [...projection.versions].sort((a, b) => b.version - a.version);
  const liveVersion = versions.find((v) => v.status === 'live');
  const building = versions.find((v) => v.status === 'building');
  const lastRetired = versions.filter((v) => v.status === 'retired').sort((a, b) => (b.retiredAt ?? '').localeCompare(a.retiredAt ?? '') || b.version - a.version)[0];
  const rebuilds = (live?.rebuilds ?? []).filter((r) => r.projection === name);
  const current = rebuilds.find((r) => !r.userId);
  const running = current && current.phase !== 'done' && current.phase !== 'failed';
  // A finished build's card goes once its version has gone: rolled away from (retired), retired for good
  // or abandoned (QA: "Done · v103" stayed after all three). A running or failed one always shows.
  const shownBuild = current && (current.phase !== 'done' || versions.some((v) => v.version === current.version && v.status !== 'retired')) ? current : undefined;
  const userRebuild = rebuilds.find((r) => r.userId);
  // The building version's record while no rebuild of it runs: stopped midway, or built (QA: a build done
  // and not switched, after a reload of the server, read "not running ... Resume it to finish it").
  const idle = running ? null : idleBuild(building?.version, projection.rebuilds);
  const stopped = idle?.kind === 'stopped' ? idle.record : undefined;
  const stoppedShort = idle?.kind === 'stopped' && idle.short;
  const inCode = projection.codeVersion !== null;
  // A version built by other formulas than this code's cannot be caught up by it: the server refuses its
  // switch or rollback ("… cannot catch up. Rebuild instead."), so neither is offered (QA), and the row says why.
  const refusalOf = (version: number) => {
    const v = versions.find((x) => x.version === version);
    return v ? catchUpRefusal(name, v.version, v.codeVersion, projection.codeVersion) : null;
  };
  const rollbackRefusal = lastRetired ? refusalOf(lastRetired.version) : null;
  const builtVersion = idle?.kind === 'built' ? versions.find((v) => v.version === idle.record.version) : undefined;
  const builtAdvice = builtVersion ? builtVersionAdvice(name, builtVersion.version, builtVersion.codeVersion, projection.codeVersion) : null;

  const busy = rebuild.isPending || doSwitch.isPending || rollback.isPending || retire.isPending || abandon.isPending;
  // `busy` disables a confirm a task after its click: each opening sends its action once (use-send-once.ts).
  const confirmSend = useSendOnce<Confirm>();
  const userSend = useSendOnce<UserRebuildOpening>();
  const [actionError, setActionError] = useState<string | null>(null);
  // The opening whose choice the server found out of date (409): its confirm would be refused again, so
  // it is not offered; the status refreshes (every mutation invalidates it) and the card shows what is now.
  const [staleChoice, setStaleChoice] = useState<Confirm | null>(null);
  const run = async (fn: () => Promise<{ message: string } | { rebuild: { id: string }; action: { message: string } }>) => {
    setActionError(null);
    const acting = confirm;
    try {
      const r = await fn();
      toast.success('message' in r ? r.message : r.action.message);
      // Close the dialog this action came from, never one opened since.
      if (confirmRef.current === acting) focusTitle.current = true;
      setConfirm((c) => (c === acting ? null : c));
      return true;
    } catch (err) {
      setActionError(errorMessage(err, 'The action failed.'));
      if (err instanceof ApiError && err.status === 409 && err.resolution === STALE_CHOICE_RESOLUTION) setStaleChoice(acting);
      else confirmSend.release(acting);
      return false;
    }
  };
  const onConfirm = () => {
    if (!confirm || !confirmSend.claim(confirm)) return;
    if (confirm.kind === 'rebuild')
      void run(async () => {
        const r = await rebuild.mutateAsync({ name, switch: switchWhenBuilt });
        onRebuildStarted(r.rebuild);
        return r;
      });
    if (confirm.kind === 'switch') void run(() => doSwitch.mutateAsync({ name, version: confirm.version })).then((ok) => ok && setCompare(null));
    if (confirm.kind === 'rollback') void run(() => rollback.mutateAsync({ name, version: confirm.version, ...(confirm.from !== null ? { from: confirm.from } : {}) }));
    if (confirm.kind === 'retire') void run(() => retire.mutateAsync({ name, version: confirm.version }));
    if (confirm.kind === 'abandon') void run(() => abandon.mutateAsync({ name, version: confirm.version })).then((ok) => ok && setCompare(null));
  };
  const submitUser = async (opening: UserRebuildOpening) => {
    // A user id, or an e-mail (an Operator has no user lookup of its own).
    const value = userId.trim();
    const parsed = rebuildRequest.safeParse(value.includes('@') ? { userEmail: value } : { userId: value });
    if (!parsed.success) {
      setUserError(parsed.error.issues[0]?.message ?? 'Enter a user id or an e-mail address.');
      return;
    }
    // The button's click and Enter in the field both come here: one request per opening of the dialog.
    if (!userSend.claim(opening)) return;
    setUserError(null);
    try {
      const r = await rebuildUser.mutateAsync({ name, ...parsed.data });
      onRebuildStarted(r.rebuild);
      toast.success(r.action.message);
      // Close the dialog this request came from, never one opened since.
      setUserDialog((o) => (o === opening ? null : o));
      setUserId('');
    } catch (err) {
      setUserError(errorMessage(err, 'The rebuild failed.'));
      userSend.release(opening);
    }
  };

  const next = Math.max(0, ...versions.map((v) => v.version)) + 1;
  const confirmText: Record<Confirm['kind'], { title: string; label: string; tone: 'primary' | 'danger' }> = {
    rebuild: {
      title: building ? `${stoppedShort ? 'Resume the build of' : 'Catch up'} ${name} v${building.version}?` : `Rebuild ${name}?`,
      label: building ? (stoppedShort ? 'Resume' : 'Catch up') : 'Rebuild',
      tone: 'primary',
    },
    switch: { title: `Switch ${name} to v${confirm && 'version' in confirm ? confirm.version : ''}?`, label: 'Switch', tone: 'primary' },
    rollback: { title: `Roll ${name} back to v${confirm && 'version' in confirm ? confirm.version : ''}?`, label: 'Roll back', tone: 'danger' },
    retire: { title: `Retire ${name} v${confirm && 'version' in confirm ? confirm.version : ''}?`, label: 'Retire', tone: 'danger' },
    abandon: { title: `Abandon ${name} v${confirm && 'version' in confirm ? confirm.version : ''}?`, label: 'Abandon', tone: 'danger' },
  };
  const confirmMessage = () => {
    if (!confirm) return null;
    switch (confirm.kind) {
      case 'rebuild':
        return (
          <>
            <p>
              {building
                ? `v${building.version} continues from its checkpoint to the head of the log.`
                : `v${next} is built beside the live version from the whole log, with the read-model code of this build (v${projection.codeVersion}).`}{' '}
              The live version keeps serving meanwhile.
            </p>
            <Checkbox label="Switch to it as soon as it is built (no comparison first)" checked={switchWhenBuilt} onChange={(e) => setSwitchWhenBuilt(e.target.checked)} />
          </>
        );
      case 'switch':
        return <p>In one transaction, v{confirm.version} is caught up and becomes live; {liveVersion ? `v${liveVersion.version} is retired and kept for a rollback.` : 'there is no live version now.'}</p>;
      case 'rollback':
        return <p>v{confirm.version} is caught up with the events since it was retired and becomes live again; {confirm.from !== null ? `v${confirm.from}` : 'the live version'} is retired.</p>;
      case 'retire':
        return <p>The tables of v{confirm.version} are dropped. There is no rollback to it after this.</p>;
      case 'abandon':
        return <p>The half-built tables of v{confirm.version} are dropped. A later rebuild starts from the beginning.</p>;
    }
  };

  const samples = live?.lagHistory ?? [];
  const latest = samples.at(-1);
  const lanes = projection.lag.length ? projection.lag : (liveVersion?.checkpoints ?? []).map((c) => ({ lane: c.lane, checkpoint: c.position, behindEvents: 0, behindSeconds: 0, capped: false, version: liveVersion!.version }));

  return (
    <article className="card ops-card ops-projection" data-testid={`projection-${name}`} aria-labelledby={`ops-${name}-title`}>
      <header className="ops-projection-head">
        <div>
          <h2 id={`ops-${name}-title`} className="ops-card-title" ref={titleRef} tabIndex={-1}>
            {name}
          </h2>
          <p className="ops-muted">
            Read-model code in this build: {projection.codeVersion === null ? 'none (not in the catalogue)' : `v${projection.codeVersion}`}
            {liveVersion ? ` · live v${liveVersion.version}` : ''}
          </p>
        </div>
        <div className="ops-head-actions">
          {inCode && (
            <>
              <Button size="sm" onClick={() => (setSwitchWhenBuilt(false), setActionError(null), setConfirm({ kind: 'rebuild' }))} disabled={Boolean(running)} data-testid="rebuild-button">
                {building && !running ? `${stoppedShort ? 'Resume' : 'Catch up'} v${building.version}` : 'Rebuild'}
              </Button>
              <Button size="sm" variant="secondary" onClick={() => (setUserError(null), setUserDialog({ kind: 'rebuild-user' }))} disabled={!liveVersion}>
                Rebuild one user
              </Button>
            </>
          )}
          {lastRetired && (
            <Button
              size="sm"
              variant="secondary"
              onClick={() => (setActionError(null), setConfirm({ kind: 'rollback', version: lastRetired.version, from: liveVersion?.version ?? null }))}
              disabled={Boolean(rollbackRefusal)}
              aria-describedby={rollbackRefusal ? `ops-${name}-rollback-refusal` : undefined}
              data-testid="rollback-button"
            >
              Roll back to v{lastRetired.version}
            </Button>
          )}
        </div>
      </header>
      {lastRetired && rollbackRefusal && (
        <p className="ops-muted" id={`ops-${name}-rollback-refusal`} data-testid="rollback-refusal">
          No rollback: {rollbackRefusal}
        </p>
      )}

      {projection.warning && <Alert tone="warning">{projection.warning}</Alert>}

      {(shownBuild || userRebuild) && (
        <div className="ops-rebuilds" aria-live="polite">
          {shownBuild && <RebuildProgress rebuild={shownBuild} versionStatus={versions.find((v) => v.version === shownBuild.version)?.status ?? null} />}
          {userRebuild && <RebuildProgress rebuild={userRebuild} />}
        </div>
      )}
      {stopped && !current && (
        <Alert tone="warning" title={`The build of v${stopped.version} is not running`}>
          {stoppedShort ? `It stopped at ${int(stopped.eventsDone)} of ${int(stopped.eventsTotal ?? 0)} events. ` : ''}Resume it to finish it: it continues from its checkpoint.
        </Alert>
      )}
      {idle?.kind === 'built' && !current && (builtAdvice?.otherCode ? (
        // Built by another release's code (QA 75: an older projector took the job): its switch is refused.
        <Alert tone="warning" title={`v${idle.record.version} was built by another release`}>
          {builtAdvice.text}
        </Alert>
      ) : (
        <Alert tone="info" title={`v${idle.record.version} is built, not switched`}>
          Compare it with the live version, then switch to it (it catches up first), or abandon it.
        </Alert>
      ))}

      <div className="ops-table-wrap">
        <table className="ops-table ops-versions" data-testid="versions">
          <thead>
            <tr>
              <th>Version</th>
              <th>Status</th>
              <th title="The read-model code version that built it">Built by</th>
              <th className="num">Rows</th>
              <th>Since</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => {
              const rows = Object.values(v.counts).reduce((a, b) => a + b, 0);
              const refusal = v.status === 'live' ? null : refusalOf(v.version);
              return (
                <tr key={v.version} data-version={v.version} data-status={v.status}>
                  <td className="mono">v{v.version}</td>
                  <td>
                    <Badge tone={statusTone[v.status] ?? 'neutral'}>{v.status === 'building' && idle?.kind === 'built' ? 'built' : v.status}</Badge>
                  </td>
                  <td>v{v.codeVersion}</td>
                  <td className="num" title={Object.entries(v.counts).map(([t, n]) => `${t}: ${int(n)}`).join('\n')}>
                    {Object.keys(v.counts).length ? int(rows) : '—'}
                  </td>
                  <td className="ops-muted">{timeAgo(v.status === 'live' ? v.liveSince : v.status === 'retired' ? v.retiredAt : v.createdAt)}</td>
                  <td className="ops-row-actions">
                    {v.status !== 'live' && liveVersion && (
                      <Button size="sm" variant="ghost" onClick={() => setCompare(v.version)} data-testid={`compare-v${v.version}`}>
                        Compare
                      </Button>
                    )}
                    {v.status !== 'live' && inCode && (
                      <Button
                        size="sm"
                        variant="ghost"
                        onClick={() => (setActionError(null), setConfirm({ kind: 'switch', version: v.version }))}
                        disabled={Boolean((running && v.status === 'building') || refusal)}
                        aria-describedby={refusal ? `ops-${name}-v${v.version}-refusal` : undefined}
                      >
                        Switch
                      </Button>
                    )}
                    {refusal && (
                      <span className="ops-muted" id={`ops-${name}-v${v.version}-refusal`} title={refusal} data-testid={`refusal-v${v.version}`}>
                        Built by {codeVersionLabel(v.codeVersion)}, the code runs {projection.codeVersion === null ? 'none' : codeVersionLabel(projection.codeVersion)}: cannot catch up, rebuild instead
                      </span>
                    )}
                    {v.status === 'retired' && (
                      <Button size="sm" variant="ghost" className="ops-danger-text" onClick={() => (setActionError(null), setConfirm({ kind: 'retire', version: v.version }))}>
                        Retire
                      </Button>
                    )}
                    {v.status === 'building' && !running && (
                      <Button size="sm" variant="ghost" className="ops-danger-text" onClick={() => (setActionError(null), setConfirm({ kind: 'abandon', version: v.version }))}>
                        Abandon
                      </Button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>

      {compare !== null && (
        <DiffPanel
          name={name}
          version={compare}
          canSwitch={inCode && !running && !refusalOf(compare)}
          onCatchUp={building?.version === compare && !running ? () => (setSwitchWhenBuilt(false), setActionError(null), setConfirm({ kind: 'rebuild' })) : undefined}
          onSwitch={() => (setActionError(null), setConfirm({ kind: 'switch', version: compare }))}
          onClose={() => setCompare(null)}
        />
      )}

      {lanes.length > 0 && (
        <div className="ops-lanes" data-testid="lanes">
          {lanes.map((l) => {
            const now = latest?.lanes.find((x) => x.projection === name && x.lane === l.lane);
            const behind = now?.behindEvents ?? l.behindEvents;
            // A capped count is a lower bound: 0 of it is not "caught up". Nor is a lag that is not measured
            // (this code does not project the live version: version skew).
            const unknown = Boolean(projection.lagUnknown);
            const lagging = behind > 0 || l.capped || unknown;
            const seconds = now?.behindSeconds ?? l.behindSeconds;
            const error = live?.laneErrors.find((e) => e.lane === l.lane);
            const state = laneState({ behind: unknown ? null : behind, capped: l.capped, seconds, errorAttempts: error ? error.attempts : null });
            return (
              <div key={l.lane} className={`ops-lane${lagging ? ' is-behind' : ''}${error ? ' is-stuck' : ''}`} data-testid={`lane-${l.lane}`}>
                <div className="ops-lane-head">
                  <strong>Lane {l.lane}</strong>
                  <span className={state.ok ? 'ops-lag-ok' : 'ops-lag-behind'} title={projection.lagUnknown}>
                    {state.text}
                  </span>
                </div>
                <LagChart samples={samples} projection={name} lane={l.lane} />
                {/* Said in words (QA: "@ 4301:1139" and "@ start" read as code). */}
                <div className="ops-muted ops-lane-cp" title="The lane's checkpoint: the log position (commit:position) of the last event it applied. The chart above: events behind over the last 15 minutes.">
                  {/^\d+-\d+$/.test(l.checkpoint) ? (
                    <>
                      Applied to <span className="mono">{position(l.checkpoint)}</span>
                    </>
                  ) : (
                    'Nothing applied yet'
                  )}
                </div>
                {error && (
                  <p className="ops-error" title={error.message}>
                    {error.attempts > 0 ? `Stuck after ${error.attempts} attempts: ${error.message}` : error.message}
                  </p>
                )}
              </div>
            );
          })}
        </div>
      )}

      <ConfirmDialog
        open={confirm !== null}
        title={confirm ? confirmText[confirm.kind].title : ''}
        message={confirmMessage()}
        confirmLabel={confirm ? confirmText[confirm.kind].label : 'Yes'}
        tone={confirm ? confirmText[confirm.kind].tone : 'primary'}
        busy={busy}
        error={actionError}
        confirmDisabled={confirm !== null && confirm === staleChoice}
        onConfirm={onConfirm}
        onCancel={() => setConfirm(null)}
      />
      <Modal
        open={userDialog !== null}
        onClose={() => setUserDialog(null)}
        title={`Rebuild one user of ${name}`}
        size="sm"
        dismissible={!rebuildUser.isPending}
        footer={
          <>
            <Button variant="secondary" onClick={() => setUserDialog(null)} disabled={rebuildUser.isPending}>
              Cancel
            </Button>
            <Button type="submit" form={`ops-${name}-rebuild-user`} loading={rebuildUser.isPending}>
              {rebuildUser.isPending ? 'Rebuilding…' : 'Rebuild user'}
            </Button>
          </>
        }
      >
        {/* A form, so Enter in the field rebuilds as the button does (the button sits in the modal's footer). */}
        <form
          id={`ops-${name}-rebuild-user`}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (userDialog) void submitUser(userDialog);
          }}
        >
          <p className="ops-muted">Recomputes this user&apos;s rows from their events in the live version, in one transaction, and rewrites only the rows that differ; the result says which. Versions do not change.</p>
          <FormField label="User id or e-mail" error={userError ?? undefined}>
            {({ id, describedBy, invalid }) => (
              <TextInput
                id={id}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                value={userId}
                onChange={(e) => setUserId(e.target.value)}
                placeholder="0197…-… or trader@example.com"
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </FormField>
        </form>
      </Modal>
    </article>
  );
}
