/**
 * The identity stand-ins as a process of their own, for the end-to-end tests of the clients
 * that are not written in TypeScript (Java, Python): an OIDC issuer and an STS checking SigV4,
 * on loopback.
 *
 *     node --import tsx packages/testkit/src/identity/upstreams-process.ts
 *
 * Prints one JSON line — the issuer's URL and a token it signed (audience `svc`, valid an hour),
 * the STS URL and the test credentials of the one role it knows — then serves until its stdin
 * closes (the test that started it ended) and exits.
 */
import { startAwsSts, startOidcIssuer } from './index.ts';

const role = {
  accessKeyId: 'ASIATESTCLIENTS00001',
  secretAccessKey: 'test-secret-clients',
  sessionToken: 'session-clients',
  arn: 'arn:aws:sts::123456789012:assumed-role/checkout-api/i-0clients',
  account: '123456789012',
};

const issuer = await startOidcIssuer();
const sts = await startAwsSts({ principals: [role] });
const token = await issuer.sign({ sub: 'repo:acme/web', aud: 'svc' }, { expiresInS: 3600 });

process.stdout.write(
  `${JSON.stringify({
    oidc: { issuer: issuer.issuer, audience: 'svc', token },
    aws: {
      sts_endpoint: `${sts.url}/`,
      access_key_id: role.accessKeyId,
      secret_access_key: role.secretAccessKey,
      session_token: role.sessionToken,
      account: role.account,
      role_arn_pattern: 'arn:aws:iam::123456789012:role/checkout-*',
    },
  })}\n`,
);

process.stdin.resume();
process.stdin.on('end', () => {
  void Promise.all([issuer.close(), sts.close()]).finally(() => process.exit(0));
});
