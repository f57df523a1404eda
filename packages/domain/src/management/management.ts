/**
 * The console's management operations, one slice per aggregate. Each operation runs in one
 * transaction, validates its (typed) input, writes an audit row, and, through the store, appends
 * to the change log so every api instance picks the change up.
 */
import { ApiKeyManagement } from './api-keys.ts';
import { AuditLog } from './audit-log.ts';
import { ConfigManagement } from './configs.ts';
import { FlagManagement } from './flags.ts';
import { IdentityManagement } from './identities.ts';
import type { ManagementPorts } from './ports.ts';
import { ProjectManagement } from './projects.ts';
import { SecretManagement } from './secrets.ts';
import { ServiceManagement } from './services.ts';
import { WorkspaceManagement } from './workspaces.ts';

/** Every slice, acting as one actor (`admin` for the console's bearer token). */
export class Management {
  readonly workspaces: WorkspaceManagement;
  readonly projects: ProjectManagement;
  readonly services: ServiceManagement;
  readonly keys: ApiKeyManagement;
  readonly configs: ConfigManagement;
  readonly flags: FlagManagement;
  readonly secrets: SecretManagement;
  readonly identities: IdentityManagement;
  readonly audit: AuditLog;

  constructor(
    private readonly ports: ManagementPorts,
    readonly actor = 'admin',
  ) {
    this.workspaces = new WorkspaceManagement(ports, actor);
    this.projects = new ProjectManagement(ports, actor);
    this.services = new ServiceManagement(ports, actor);
    this.keys = new ApiKeyManagement(ports, actor);
    this.configs = new ConfigManagement(ports, actor);
    this.flags = new FlagManagement(ports, actor);
    this.secrets = new SecretManagement(ports, actor);
    this.identities = new IdentityManagement(ports, actor);
    this.audit = new AuditLog(ports);
  }

  /** The same operations, audited as done by another actor. */
  as(actor: string): Management {
    return new Management(this.ports, actor);
  }
}
