/**
 * bench/identity: the token exchange (`POST {base_url}/v1/auth/token`) per method against the
 * testkit's stand-ins, on the bundled apps (embedded SQLite, or DATABASE_URL). Each exchange
 * verifies (OIDC/GCP/Azure: a JWT against cached keys; Kubernetes: a TokenReview call; AWS: an
 * STS call that recomputes SigV4), then commits a minted key and waits until the api's read
 * model holds it. Baselines in the same run, rounds interleaved: a secret write through
 * `PUT /v1/secrets/{key}` (also one commit plus read-your-writes), and the Kubernetes and STS
 * stand-ins called directly (the upstream's own share).
 *   pnpm --filter @svc/bench bench:identity [-- --seconds 5 --rounds 3 --connections 16]
 * Latency: wrk with 1 connection; throughput: wrk with --connections.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  signGetCallerIdentity,
  startAwsSts,
  startAzureImds,
  startGcpMetadata,
  startKubernetesApi,
  startOidcIssuer,
  TOKEN_REVIEW_PATH,
} from '@svc/testkit/identity';
import { httpCall } from '@svc/testkit';
import { repoRoot, requireWrk, startApps, wrkAsync, type WrkResult } from '../lib/processes.ts';
import { median, seedBenchProject } from '../lib/seed.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const seconds = arg('--seconds', 5);
const rounds = arg('--rounds', 3);
const connections = arg('--connections', 16);
requireWrk();

const tenantId = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const principalId = '0c4e1b5a-1234-4abc-9def-0123456789ab';
const email = 'bench@bench-prod.iam.gserviceaccount.com';
const role = {
  accessKeyId: 'ASIABENCHROLE0000001',
  secretAccessKey: 'bench-secret',
  arn: 'arn:aws:sts::123456789012:assumed-role/bench/i-0',
  account: '123456789012',
};

// The stand-ins answer from this process: wrk runs as its own process (wrkAsync), never blocking it.
const issuer = await startOidcIssuer();
const google = await startOidcIssuer({ issuer: 'https://accounts.google.com' });
const entra = await startOidcIssuer({ issuer: `https://sts.windows.net/${tenantId}/` });
const k8s = await startKubernetesApi({ tls: false });
const sts = await startAwsSts({ principals: [role] });
const gce = await startGcpMetadata({ issuer: google, email, projectId: 'bench-prod' });
const imds = await startAzureImds({ issuer: entra, tenantId, principalId });
const apps = await startApps({
  IDENTITY_ALLOW_HTTP: 'true',
  IDENTITY_EXCHANGE_MAX: '1000000000',
  WRITE_RATE_LIMIT_MAX: '1000000000',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
try {
  const reviewer = k8s.issueReviewerToken();
  const blocks: Record<string, Record<string, unknown>> = {
    oidc: { issuer: issuer.issuer, audiences: ['svc'], subject: 'repo:bench/*' },
    kubernetes: {
      api_server: k8s.url,
      reviewer_token: reviewer,
      namespaces: ['bench'],
      service_accounts: ['app'],
    },
    aws: { accounts: ['123456789012'], sts_endpoint: `${sts.url}/` },
    gcp: { audience: 'https://svc.bench', service_accounts: [email], jwks_url: google.jwksUrl },
    azure: {
      tenant_id: tenantId,
      audience: 'api://svc',
      principal_ids: [principalId],
      jwks_url: entra.jwksUrl,
    },
  };
  const ids: Record<string, string> = {};
  const key = await seedBenchProject(apps, async (p) => {
    for (const [method, block] of Object.entries(blocks)) {
      const res = await apps.admin('POST', `${p}/identities`, {
        name: method,
        kind: 'secret',
        method,
        [method]: block,
      });
      ids[method] = res.json().id;
    }
  });
  // One credential per method, valid for the whole run (tokens live an hour, a signed request 15 min).
  const gcpToken = (
    await httpCall(
      Number(new URL(gce.url).port),
      'GET',
      '/computeMetadata/v1/instance/service-accounts/default/identity?audience=https://svc.bench',
      {
        headers: { 'Metadata-Flavor': 'Google' },
      },
    )
  ).text;
  const azureToken = (
    await httpCall(
      Number(new URL(imds.url).port),
      'GET',
      '/metadata/identity/oauth2/token?api-version=2018-02-01&resource=api://svc',
      {
        headers: { Metadata: 'true' },
      },
    )
  ).json().access_token as string;
  const k8sToken = k8s.issueToken({ namespace: 'bench', serviceAccount: 'app' });
  const signed = await signGetCallerIdentity(role, { endpoint: `${sts.url}/` });
  const credentials: Record<string, Record<string, unknown>> = {
    oidc: { token: await issuer.sign({ sub: 'repo:bench/app', aud: 'svc' }, { expiresInS: 3600 }) },
    kubernetes: { token: k8sToken },
    aws: { aws: signed },
    gcp: { token: gcpToken },
    azure: { token: azureToken },
  };
  const api = `http://127.0.0.1:${apps.apiPort}/bench`;
  for (const [method, credential] of Object.entries(credentials)) {
    const res = await httpCall(apps.apiPort, 'POST', '/bench/v1/auth/token', {
      body: { identity_id: ids[method], ...credential },
    });
    if (res.status !== 200) throw new Error(`${method} exchange: ${res.status} ${res.text}`);
  }

  type Load = (c: number) => Promise<WrkResult>;
  const loads: Record<string, Load> = {};
  for (const [method, credential] of Object.entries(credentials)) {
    const body = JSON.stringify({ identity_id: ids[method], ...credential });
    loads[`exchange ${method}`] = (c) =>
      wrkAsync(`${api}/v1/auth/token`, {}, { method: 'POST', body, seconds, connections: c });
  }
  loads['baseline: PUT /v1/secrets'] = (c) =>
    wrkAsync(
      `${api}/v1/secrets/bench.value`,
      { 'X-Service-API-Key': key },
      { method: 'PUT', body: '{"value":"v"}', seconds, connections: c },
    );
  loads['baseline: TokenReview stand-in alone'] = (c) =>
    wrkAsync(
      `${k8s.url}${TOKEN_REVIEW_PATH}`,
      { Authorization: `Bearer ${reviewer}` },
      {
        method: 'POST',
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token: k8sToken },
        }),
        seconds,
        connections: c,
      },
    );
  loads['baseline: STS stand-in alone'] = (c) =>
    wrkAsync(
      `${sts.url}/`,
      Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k !== 'host')),
      {
        method: 'POST',
        body: Buffer.from(signed.body, 'base64').toString(),
        seconds,
        connections: c,
      },
    );

  const runs: Record<string, { latency: WrkResult[]; throughput: WrkResult[] }> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, load] of Object.entries(loads)) {
      const entry = (runs[name] ??= { latency: [], throughput: [] });
      entry.latency.push(await load(1));
      entry.throughput.push(await load(connections));
    }
  }
  const table = Object.fromEntries(
    Object.entries(runs).map(([name, { latency, throughput }]) => {
      const l = median(latency, (x) => x.latencyP50Ms);
      const t = median(throughput, (x) => x.requestsPerSecond);
      return [
        name,
        {
          'p50 ms (1 conn)': Number(l.latencyP50Ms.toFixed(2)),
          'p99 ms (1 conn)': Number(l.latencyP99Ms.toFixed(2)),
          [`req/s (${connections} conn)`]: Math.round(t.requestsPerSecond),
          [`p99 ms (${connections} conn)`]: Number(t.latencyP99Ms.toFixed(2)),
          errors: [...latency, ...throughput].reduce((n, x) => n + x.non2xx3xx, 0),
        },
      ];
    }),
  );
  console.table(table);
  mkdirSync(join(repoRoot, 'bench/results'), { recursive: true });
  writeFileSync(
    join(repoRoot, 'bench/results/identity.json'),
    JSON.stringify(
      {
        date: new Date().toISOString(),
        database: process.env.DATABASE_URL ? 'postgresql' : 'sqlite',
        seconds,
        rounds,
        connections,
        results: table,
      },
      null,
      2,
    ),
  );
} finally {
  await apps.stop();
  for (const server of [gce, imds, issuer, google, entra, k8s, sts]) await server.close();
}
