// @ts-check
/** What the configs, flags and secrets panels share. */
import { api } from './api.js';
import { button, enc } from './dom.js';
import { change } from './forms.js';
import { scopeLabel, scopePath } from './state.js';

/** A row's Delete button, asking first. @param {'configs' | 'flags' | 'secrets'} kind @param {string} key @param {() => Promise<void>} reload */
export const deleteButton = (kind, key, reload) =>
  button(
    'Delete',
    async () => {
      if (!confirm(`Delete ${kind.slice(0, -1)} ${key} from ${scopeLabel()}?`)) return;
      await change(
        `${kind.slice(0, -1)}-list`,
        () => api('DELETE', `${scopePath()}/${kind}/${enc(key)}`),
        reload,
      );
    },
    'danger',
  );
