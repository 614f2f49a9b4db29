import { builder } from '../builder.js';
import { NotFoundError } from '../../lib/errors.js';
import { argsOf } from '../../validation/args.js';
import { ConditionsChangedParams, RESORT_BOUNDS } from '../../validation/resort-params.js';
import { CONDITIONS_CHANGE_REASONS, type ConditionsUpdate } from '../../live/conditions-feed.js';
import { ConditionsRef } from './conditions.js';
import { unitsArg } from './units.js';
import { SHARED_EVENTS } from '../field-extensions.js';

const ReasonEnum = builder.enumType('ConditionsChangeReason', {
  description:
    'INITIAL: the report when the subscription starts. SYNC: new data was fetched for the resort (sent even when the numbers are the same: `syncedAt` moves). ' +
    'HOUR: the hour the report describes turned. LIFTS: live lift status changed the open lift count, with no new weather.',
  values: CONDITIONS_CHANGE_REASONS,
});

const ConditionsUpdateRef = builder.objectRef<ConditionsUpdate>('ConditionsUpdate').implement({
  description: 'A resort’s report, sent when the subscription starts and whenever it changes.',
  fields: (t) => ({
    resortId: t.exposeID('resortId'),
    conditions: t.expose('conditions', { type: ConditionsRef }),
    reason: t.expose('reason', { type: ReasonEnum }),
    syncedAt: t.expose('syncedAt', {
      type: 'DateTime',
      description: 'When the data behind the report was fetched from the provider, to judge its freshness (1970-01-01T00:00:00.000Z: never).',
    }),
  }),
});

const MAX_IDS = RESORT_BOUNDS.liveResortIds.max;

builder.subscriptionField('conditionsChanged', (t) =>
  t.field({
    type: ConditionsUpdateRef,
    description:
      `Live conditions: each resort’s report now (INITIAL), then again whenever it changes, whichever replica fetched the data; an update identical to the last one is not sent. ` +
      `1–${MAX_IDS} resort ids; unknown ids are refused (NOT_FOUND, naming them). Over SSE (accept: text/event-stream), multipart/mixed or WebSocket (graphql-transport-ws). ` +
      'Its cost is charged once, when the subscription starts: one report per resort. A client that reads updates more slowly than they come is cut (TOO_SLOW) and subscribes again.',
    complexity: (args) => ({ field: 1, multiplier: Array.isArray(args.resortIds) ? Math.min(args.resortIds.length, 10_000) : 1 }),
    // An update is one object for every subscriber of its resort and units, and its fields read nothing of a request.
    extensions: { [SHARED_EVENTS]: true },
    args: t.validate(
      {
        resortIds: t.arg.idList({ required: true, description: `1–${MAX_IDS} resort ids (e.g. ["vail", "zermatt"]; a copy counts once).` }),
        units: t.arg(unitsArg),
      },
      argsOf(ConditionsChangedParams),
    ),
    subscribe: async (_r, { resortIds, units }, ctx) => {
      const found = await ctx.loaders.resortById.loadMany(resortIds);
      const missing = resortIds.filter((_id, i) => !found[i] || found[i] instanceof Error);
      if (missing.length > 0) throw new NotFoundError('Resort', 'resortIds', missing);
      return ctx.live.subscribe(resortIds, units, ctx.signal);
    },
    resolve: (update) => update,
  }),
);
