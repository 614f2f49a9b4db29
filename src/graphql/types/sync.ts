import { builder } from '../builder.js';
import { NEEDS_SCOPE, SHARED_EVENTS } from '../field-extensions.js';
import { sliced } from '../cost-directives.js';
import { ForbiddenError, hasScope } from '../../auth/scopes.js';
import type { SyncRunRecord } from '../../data/repositories/sync.js';
import type { SyncStatus } from '../../sync/runner.js';
import { argsOf } from '../../validation/args.js';
import { SYNC_BOUNDS, SyncHistoryParams } from '../../validation/sync-params.js';
import { SYNC_RUN_STATUSES, SYNC_STATES, SYNC_TRIGGERS } from '../../data/repositories/sync.js';

const SyncStateEnum = builder.enumType('SyncState', { values: SYNC_STATES });
const SyncTriggerEnum = builder.enumType('SyncTrigger', { values: SYNC_TRIGGERS });
const SyncRunStatusEnum = builder.enumType('SyncRunStatus', {
  description:
    'SUCCEEDED: every resort updated; PARTIAL: some failed (the rest published); FAILED: nothing published (the last good data stays served), or the process stopped mid-run.',
  values: SYNC_RUN_STATUSES,
});

const SyncRunRef = builder.objectRef<SyncRunRecord>('SyncRun').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    trigger: t.expose('trigger', { type: SyncTriggerEnum }),
    provider: t.exposeString('provider'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    status: t.expose('status', { type: SyncRunStatusEnum }),
    resortsUpdated: t.exposeInt('resortsUpdated'),
    resortsFailed: t.exposeInt('resortsFailed'),
    error: t.exposeString('error', { nullable: true, description: 'The first failure’s cause, when any resort failed.' }),
  }),
});

const ProgressRef = builder.objectRef<SyncStatus['progress']>('SyncProgress').implement({
  fields: (t) => ({ done: t.exposeInt('done'), total: t.exposeInt('total') }),
});

const SyncStatusRef = builder.objectRef<SyncStatus>('SyncStatus').implement({
  fields: (t) => ({
    state: t.expose('state', { type: SyncStateEnum }),
    provider: t.exposeString('provider'),
    progress: t.expose('progress', { type: ProgressRef, description: 'Resorts done of the running run (0 of 0 when idle).' }),
    lastRun: t.expose('lastRun', { type: SyncRunRef, nullable: true, description: 'The last finished run.' }),
    nextScheduledRun: t.expose('nextScheduledRun', { type: 'DateTime', nullable: true, description: 'Null when no schedule is set.' }),
  }),
});

builder.queryFields((t) => ({
  syncStatus: t.field({
    nullable: true,
    type: SyncStatusRef,
    description: 'The sync run going on, if any, the last finished one, and when the next is scheduled.',
    resolve: (_r, _a, ctx) => ctx.sync.status(),
  }),
  syncHistory: t.field({
    nullable: true,
    type: [SyncRunRef],
    description: `Recent runs, newest first; limit 1–${SYNC_BOUNDS.historyLimit.max}, default ${SYNC_BOUNDS.historyLimit.default}.`,
    args: t.validate(
      { limit: t.arg.int({ description: `Most runs to return, 1–${SYNC_BOUNDS.historyLimit.max}.`, defaultValue: SYNC_BOUNDS.historyLimit.default }) },
      argsOf(SyncHistoryParams),
    ),
    complexity: sliced(
      (args: { limit?: unknown }) => ({
        field: 1,
        multiplier: typeof args.limit === 'number' && args.limit > 0 ? Math.min(args.limit, 1000) : SYNC_BOUNDS.historyLimit.default,
      }),
      ['limit'],
    ),
    resolve: (_r, { limit }, ctx) => ctx.sync.history(limit),
  }),
}));

builder.mutationType({});
builder.mutationField('runSync', (t) =>
  t.field({
    type: SyncStatusRef,
    nullable: true,
    description:
      'Starts a sync run unless one is going (then starts nothing); answers the status either way. Needs a key with the admin scope (FORBIDDEN otherwise).',
    extensions: { [NEEDS_SCOPE]: 'admin' },
    resolve: (_r, _a, ctx) => {
      if (!hasScope(ctx.scopes, 'admin')) throw new ForbiddenError('admin', 'Starting a sync run');
      return ctx.sync.start('MANUAL');
    },
  }),
);

builder.subscriptionType({});
builder.subscriptionField('syncProgress', (t) =>
  t.field({
    type: SyncStatusRef,
    description: 'The sync status now, then at every change (served over SSE: accept text/event-stream).',
    subscribe: (_r, _a, ctx) => ctx.sync.updates(ctx.signal),
    // A status is one object for every subscriber, and its fields read nothing of a request.
    extensions: { [SHARED_EVENTS]: true },
    resolve: (s) => s,
  }),
);
