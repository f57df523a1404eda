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
import {
  createIdentities,
  signGetCallerIdentity,
  startIdentityPlatforms,
  TOKEN_REVIEW_PATH,
} from '@svc/testkit/identity';
import { httpCall } from '@svc/testkit';
import { databaseEnv, databaseName, numberArg, writeResultsFile } from '../lib/bench-run.ts';
import { requireWrk, startApps, wrkAsync, type WrkResult } from '../lib/processes.ts';
import { median, seedBenchProject } from '../lib/seed.ts';

const seconds = numberArg('--seconds', 5);
const rounds = numberArg('--rounds', 3);
const connections = numberArg('--connections', 16);
requireWrk();

// The stand-ins answer from this process: wrk runs as its own process (wrkAsync), never blocking it.
const platforms = await startIdentityPlatforms({
  oidc: {},
  kubernetes: { tls: false },
  aws: {},
  gcp: {},
  azure: {},
});
const { oidc: issuer, kubernetes: k8s, aws: sts, gcp, azure } = platforms;
const apps = await startApps({
  IDENTITY_ALLOW_HTTP: 'true',
  IDENTITY_EXCHANGE_MAX: '1000000000',
  WRITE_RATE_LIMIT_MAX: '1000000000',
  ...databaseEnv(),
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
    gcp: {
      audience: 'https://svc.bench',
      service_accounts: [gcp.email],
      jwks_url: gcp.issuer.jwksUrl,
    },
    azure: {
      tenant_id: azure.tenantId,
      audience: 'api://svc',
      principal_ids: [azure.principalId],
      jwks_url: azure.issuer.jwksUrl,
    },
  };
  let ids: Record<string, string> = {};
  const key = await seedBenchProject(apps, async (p) => {
    ids = await createIdentities(apps.admin, p, blocks);
  });
  // One credential per method, valid for the whole run (tokens live an hour, a signed request 15 min).
  const gcpToken = await gcp.metadata.identityToken('https://svc.bench');
  const azureToken = await azure.imds.accessToken('api://svc');
  const k8sToken = k8s.issueToken({ namespace: 'bench', serviceAccount: 'app' });
  const signed = await signGetCallerIdentity(sts.principal, { endpoint: `${sts.url}/` });
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
  writeResultsFile('identity', {
    date: new Date().toISOString(),
    database: databaseName(),
    seconds,
    rounds,
    connections,
    results: table,
  });
} finally {
  await apps.stop();
  await platforms.close();
}
