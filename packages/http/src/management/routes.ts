/**
 * The management API's one route table (under `/api`), aggregate by aggregate. A new aggregate
 * adds its `*-routes.ts` here; apps/console/openapi.yaml documents every entry (a test checks
 * both ways).
 */
import { auditRoutes } from './audit-routes.ts';
import { identityRoutes } from './identity-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { projectRoutes } from './project-routes.ts';
import type { ManagementRoute } from './route.ts';
import { valueRoutes } from './value-routes.ts';
import { workspaceRoutes } from './workspace-routes.ts';

export const MANAGEMENT_ROUTES: readonly ManagementRoute[] = [
  ...workspaceRoutes,
  ...projectRoutes,
  ...keyRoutes,
  ...identityRoutes,
  ...valueRoutes,
  ...auditRoutes,
];
