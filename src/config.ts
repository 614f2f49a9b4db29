import { z } from 'zod';

/** Environment, validated once at start-up so a typo fails loudly instead of at the first request. */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DB_PATH: z.string().min(1).default('data/gateway.sqlite'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  dbPath: string;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  /** Count every SQL statement executed (tests use it to prove batching); off in production. */
  countStatements: boolean;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return { port: e.PORT, host: e.HOST, dbPath: e.DB_PATH, logLevel: e.LOG_LEVEL, countStatements: false };
}
