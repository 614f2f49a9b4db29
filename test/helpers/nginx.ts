import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './redis.js';
import { testDir } from './server.js';

export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
export const haveNginx = existsSync(NGINX);

export interface TestNginx {
  url: string;
  /** What nginx logged as errors (upstreams it gave up on, retries). */
  errors(): string;
  stop(): Promise<void>;
}

/**
 * Debian's nginx in front of replicas on these ports, configured as examples/replicas/nginx.conf
 * is (round robin, passive checks, pooled connections), with idempotent requests retried on the
 * next replica when one refuses, resets or answers 502/503 — what an operator puts in front of a
 * rolling restart. A replica left out is tried again after 1 s (the example's 5 s would only make
 * a restart's test wait longer). Its own prefix, logs and port.
 */
export async function startNginx(upstreamPorts: number[]): Promise<TestNginx> {
  const dir = testDir('gateway-nginx-');
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream gateway {
${upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=3 fail_timeout=1s;`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    # A client connection is not closed after 1,000 requests (the default): a load generator's
    # next request would race that close.
    keepalive_requests 1000000;
    location / {
      proxy_pass http://gateway;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 3;
      proxy_buffering off;
    }
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d;
  });
  const url = `http://127.0.0.1:${port}`;
  // Up once it answers (502 is fine: nginx is there, whatever its upstreams say).
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    const up = await fetch(`${url}/livez`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (i > 100) throw new Error(`nginx did not answer in 10 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    errors: () => (existsSync(path.join(dir, 'error.log')) ? readFileSync(path.join(dir, 'error.log'), 'utf8') : ''),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGQUIT');
      }),
  };
}
