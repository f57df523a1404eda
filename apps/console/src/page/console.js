// @ts-check
/**
 * The console page: plain DOM over the management API, as native ES modules with no build step.
 * Each panel is a module under `panels/` that registers itself (lib/panels.js); importing it here
 * is all a new panel needs besides its section in index.html.
 */
import './panels/workspaces.js';
import './panels/projects.js';
import './panels/services.js';
import './panels/keys.js';
import './panels/identities.js';
import './panels/configs.js';
import './panels/flags.js';
import './panels/secrets.js';
import './panels/audit.js';
import { startSession } from './panels/session.js';

startSession();
