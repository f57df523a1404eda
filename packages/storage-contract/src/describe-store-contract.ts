/**
 * The suite every Store/ChangeFeed adapter must pass. Each test gets a fresh, empty database
 * from `makeSubject`; assertions read back through the store and, for persistence, raw rows.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import type { ChangeFeed, Store } from '@svc/domain';
import { describeApiKeys } from './cases/api-keys.ts';
import { describeAudit } from './cases/audit.ts';
import { describeChangeFeed } from './cases/change-feed.ts';
import { describeChangeLog } from './cases/change-log.ts';
import { describeConcurrency } from './cases/concurrency.ts';
import { describeConfigsAndFlags } from './cases/configs-flags.ts';
import { describeEntities } from './cases/entities.ts';
import { describeIdentities } from './cases/identities.ts';
import { describeProjectState } from './cases/project-state.ts';
import { describeSecrets } from './cases/secrets.ts';
import { describeSecretVersioningModel } from './cases/secret-versioning-model.ts';
import { describeSealedVersions } from './cases/sealed-versions.ts';
import { describeTransactions } from './cases/transactions.ts';
import { ManualClock, type Harness } from './fixtures.ts';
import type { MakeStoreSubject, StoreSubject } from './subject.ts';

export function describeStoreContract(adapterName: string, makeSubject: MakeStoreSubject): void {
  describe(`Store contract: ${adapterName}`, () => {
    let subject: StoreSubject | undefined;
    let clock = new ManualClock();
    let feeds: ChangeFeed[] = [];
    let others: Store[] = [];

    beforeEach(async () => {
      clock = new ManualClock();
      subject = await makeSubject({ clock: { now: () => clock.now() } });
    });

    afterEach(async () => {
      for (const feed of feeds) await feed.close();
      for (const other of others) await other.close();
      feeds = [];
      others = [];
      await subject?.cleanup();
      subject = undefined;
    });

    const current = (): StoreSubject => {
      if (!subject) throw new Error('no subject: use the harness inside a test');
      return subject;
    };

    const harness: Harness = {
      get subject() {
        return current();
      },
      get store() {
        return current().store;
      },
      get clock() {
        return clock;
      },
      feed(options) {
        const feed = current().feed(options);
        feeds.push(feed);
        return feed;
      },
      async another() {
        const open = current().openAnother;
        if (!open) return undefined;
        const other = await open();
        others.push(other);
        return other;
      },
      rawRows: (sql) => current().rawRows(sql),
    };

    describeEntities(harness);
    describeApiKeys(harness);
    describeConfigsAndFlags(harness);
    describeSecrets(harness);
    describeSecretVersioningModel(harness);
    describeSealedVersions(harness);
    describeChangeLog(harness);
    describeTransactions(harness);
    describeConcurrency(harness);
    describeProjectState(harness);
    describeAudit(harness);
    describeChangeFeed(harness);
    describeIdentities(harness);
  });
}
