import { builder } from '../builder.js';

const HealthRef = builder.objectRef<{ status: string; service: string; timestamp: string }>('Health');

HealthRef.implement({
  fields: (t) => ({
    status: t.exposeString('status', { description: 'Always ok while the process serves requests.' }),
    service: t.exposeString('service'),
    timestamp: t.exposeString('timestamp', { description: 'Server time, ISO 8601.' }),
  }),
});

builder.queryFields((t) => ({
  health: t.field({
    type: HealthRef,
    resolve: (_root, _args, ctx) => ({ status: 'ok', service: 'ski-zip-gateway', timestamp: ctx.now().toISOString() }),
  }),
}));
