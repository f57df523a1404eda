/**
 * nginx (Debian's package) serving a file with `etag on` from one worker: the machine's own
 * limit for answering the same bytes, with 304s on `If-None-Match`. Installed with apt-get
 * when missing, as scripts/dev.sh does for wrk.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function requireNginx(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')[0]!;
  } catch {
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'nginx'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    return '/usr/sbin/nginx';
  }
}

/** Starts nginx in the foreground on `port`, serving `file` at `path`, with the same headers. */
export function startNginx(dir: string, port: number, path: string, file: string): ChildProcess {
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${dir};
  proxy_temp_path ${dir};
  fastcgi_temp_path ${dir};
  uwsgi_temp_path ${dir};
  scgi_temp_path ${dir};
  server {
    listen 127.0.0.1:${port};
    location = ${path} {
      alias ${file};
      default_type application/json;
      etag on;
      add_header Cache-Control "private, no-cache";
      add_header Access-Control-Allow-Origin "*";
      add_header Access-Control-Expose-Headers "ETag, Retry-After";
    }
  }
}
`,
  );
  return spawn(requireNginx(), ['-c', conf, '-p', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
}
