import { builder } from '../builder.js';

const HealthRef = builder.objectRef<{ status: string; service: string; timestamp: string }>('Health');

HealthRef.implement({
  fields: (t) => ({
    status: t.exposeString('status', { description: 'Always ok while the process serves requests.' }),
    service: t.exposeString('service'),
    timestamp: t.expose('timestamp', { type: 'DateTime', description: 'Server time.' }),
  }),
});

builder.queryFields((t) => ({
  health: t.field({
    nullable: true,
    type: HealthRef,
    description: 'The service is up and the key works (/livez and /readyz answer without a key).',
    resolve: (_root, _args, ctx) => ({ status: 'ok', service: 'ski-zip-gateway', timestamp: ctx.now().toISOString() }),
  }),
}));
